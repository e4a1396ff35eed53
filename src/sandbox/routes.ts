/**
 * The route table, derived from the registry: every operation of every resource becomes a
 * (method, path template) pair. Matching is case-insensitive on the literal segments
 * (`/Export/JSON/Products` = `/export/json/products`); parameters keep the case they were sent in.
 */
import type { OperationDef, ResourceDef } from '../shop/registry/index.js';

/** A route: which resource and operation a method + path template stands for. */
export interface Route {
  readonly resource: ResourceDef;
  readonly operation: string;
  readonly op: OperationDef;
  readonly segments: readonly Segment[];
}

type Segment = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'param'; readonly name: string } | { readonly kind: 'range'; readonly start: string; readonly end: string };

function compile(path: string): Segment[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s): Segment => {
      const range = /^\{(\w+)\}:\{(\w+)\}$/.exec(s);
      if (range) return { kind: 'range', start: range[1], end: range[2] };
      const param = /^\{(\w+)\}$/.exec(s);
      if (param) return { kind: 'param', name: param[1] };
      return { kind: 'literal', text: s.toLowerCase() };
    });
}

/** Build the route table of every registered resource. */
export function buildRoutes(resources: readonly ResourceDef[]): Route[] {
  const routes: Route[] = [];
  for (const resource of resources) {
    const { extra, ...standard } = resource.ops;
    for (const [operation, op] of Object.entries(standard)) {
      if (op) routes.push({ resource, operation, op, segments: compile(op.path) });
    }
    for (const [operation, op] of Object.entries(extra ?? {})) routes.push({ resource, operation, op, segments: compile(op.path) });
  }
  // Literal segments beat parameters: a more specific template must win (`/export/json/ticket_attachments/{id}` vs `{id}`).
  routes.sort((a, b) => literalCount(b) - literalCount(a));
  return routes;
}

function literalCount(route: Route): number {
  return route.segments.filter((s) => s.kind === 'literal').length;
}

/** The result of matching a request. */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Record<string, string> }
  /** The path exists, but not for this method. */
  | { readonly kind: 'method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' };

/** Match a method and URL path (without query) against the route table. */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const parts = path.split('/').filter((s) => s.length > 0).map(safeDecode);
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchSegments(route.segments, parts);
    if (!params) continue;
    if (route.op.method === method.toUpperCase()) return { kind: 'found', route, params };
    allowed.push(route.op.method);
  }
  return allowed.length > 0 ? { kind: 'method', allowed } : { kind: 'none' };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const part = parts[i];
    if (seg.kind === 'literal') {
      if (seg.text !== part.toLowerCase()) return undefined;
    } else if (seg.kind === 'param') {
      if (part.includes(':')) return undefined;
      params[seg.name] = part;
    } else {
      const m = /^([^:]*):([^:]*)$/.exec(part);
      if (!m) return undefined;
      params[seg.start] = m[1];
      params[seg.end] = m[2];
    }
  }
  return params;
}
