/**
 * The resource registry: every resource of the Shop Administration JSON API, described once.
 * Add a resource by writing `src/shop/resources/<name>.ts` and listing it here; the registry
 * test compares this list with every path in the spec.
 */
import type { ResourceDef } from './types.js';
import { products } from '../resources/products.js';
import { orders } from '../resources/orders.js';
import { customers } from '../resources/customers.js';
import { categories } from '../resources/categories.js';
import { manufacturers } from '../resources/manufacturers.js';
import { suppliers } from '../resources/suppliers.js';
import { contracts } from '../resources/contracts.js';
import { tickets } from '../resources/tickets.js';
import { newsletter_subscribers } from '../resources/newsletter_subscribers.js';
import { newsletters } from '../resources/newsletters.js';
import { seohistory } from '../resources/seohistory.js';
import { newsdesk } from '../resources/newsdesk.js';
import { newsdesk_categories } from '../resources/newsdesk_categories.js';
import { newsdesk_authors } from '../resources/newsdesk_authors.js';
import { projects } from '../resources/projects.js';
import { project_tasks } from '../resources/project_tasks.js';
import { sliders } from '../resources/sliders.js';
import { faqdesk } from '../resources/faqdesk.js';
import { faqdesk_categories } from '../resources/faqdesk_categories.js';

export * from './types.js';
import type { EmptyDef, RequiredOnCreateDef } from './types.js';

/** All resources by name. */
export const resources = {
  products,
  orders,
  customers,
  categories,
  manufacturers,
  suppliers,
  contracts,
  tickets,
  newsletter_subscribers,
  newsletters,
  seohistory,
  newsdesk,
  newsdesk_categories,
  newsdesk_authors,
  projects,
  project_tasks,
  sliders,
  faqdesk,
  faqdesk_categories,
} as const satisfies Record<string, ResourceDef>;

export type ResourceName = keyof typeof resources;

/** Every registered resource, in registry order. */
export const allResources: readonly ResourceDef[] = Object.values(resources);

/** Whether a string names a registered resource. */
export function isResourceName(name: string): name is ResourceName {
  return Object.prototype.hasOwnProperty.call(resources, name);
}

/** Look up a resource by name; throws with the list of known names when unknown. */
export function getResource(name: string): ResourceDef {
  if (!isResourceName(name)) {
    throw new Error(`Unknown shop resource \`${name}\`; known resources: ${Object.keys(resources).join(', ')}`);
  }
  return resources[name];
}

/** The `requiredOnCreate` rules a create payload does not satisfy (empty when it may be created); `allowed`: the mapping's `allow:` words. */
export function missingOnCreate(resource: ResourceDef, payload: Readonly<Record<string, unknown>>, allowed: readonly string[] = []): RequiredOnCreateDef[] {
  return (resource.requiredOnCreate ?? []).filter((rule) => {
    if (rule.allowedBy !== undefined && allowed.includes(rule.allowedBy)) return false;
    const status = rule.unlessInactive ? payload[rule.unlessInactive.field] : undefined;
    if (rule.unlessInactive && status !== undefined && status !== null && rule.unlessInactive.inactive.includes(status as string | number)) return false;
    return !satisfies(rule, payload[rule.field]);
  });
}

/** Whether mapping targets (`products_model`, `languages.de.products_name`) can fill a `requiredOnCreate` rule at all. */
export function targetsFill(rule: RequiredOnCreateDef, targets: readonly string[]): boolean {
  if (rule.inSomeEntry !== undefined) return targets.some((t) => t.startsWith(`${rule.field}.`) && t.split('.').pop() === rule.inSomeEntry);
  return targets.some((t) => t === rule.field || t.startsWith(`${rule.field}.`));
}

/** The words a mapping of this resource may list under `allow:`. */
export function allowWords(resource: ResourceDef): string[] {
  return (resource.requiredOnCreate ?? []).flatMap((r) => (r.allowedBy ? [r.allowedBy] : []));
}

function satisfies(rule: RequiredOnCreateDef, value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (rule.values && !rule.values.includes(value as string | number)) return false;
  if (rule.positive && !(Number(value) > 0)) return false;
  if (rule.inSomeEntry !== undefined) {
    if (typeof value !== 'object') return false;
    const sub = rule.inSomeEntry;
    return Object.values(value as Record<string, unknown>).some((entry) => typeof entry === 'object' && entry !== null && typeof (entry as Record<string, unknown>)[sub] === 'string' && ((entry as Record<string, unknown>)[sub] as string).trim() !== '');
  }
  if (rule.parts) {
    if (typeof value !== 'object') return false;
    const obj = value as Record<string, unknown>;
    return rule.parts.every((part) => typeof obj[part] === 'string' && obj[part] !== '');
  }
  return true;
}

/** An export record with the resource's export views added (for shop→ERP mappings); the record itself when it has none. */
export function withExportViews(resource: ResourceDef, record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (!resource.exportViews) return record as Record<string, unknown>;
  const out: Record<string, unknown> = { ...record };
  for (const [field, view] of Object.entries(resource.exportViews)) out[field] = view.derive(record);
  return out;
}

/** Whether a target path (`languages.de.products_description`, `groups[].x`) is the registry path `pattern` (`languages.*.products_description`). */
function samePath(target: string, pattern: string): boolean {
  const t = target.replace(/\[\d*\]/g, '[]').split('.');
  const p = pattern.split('.');
  return t.length === p.length && p.every((seg, i) => seg === '*' || seg === t[i] || (seg === '*[]' && t[i]!.endsWith('[]')));
}

const DECIMAL_NEVER = "the shop stores '' and null in a decimal field as 0, and an empty cell is unknown, never 0";

/**
 * What empties a field on the wire (its registry entry), or why it cannot be emptied. A decimal
 * field has no empty value; a field the registry does not describe cannot be cleared either.
 */
export function emptyOf(resource: ResourceDef, target: string): EmptyDef {
  const listed = Object.entries(resource.empties ?? {}).find(([pattern]) => samePath(target, pattern));
  if (listed) return listed[1];
  if (resource.decimalFields.some((pattern) => samePath(target, pattern))) return { never: DECIMAL_NEVER };
  return { never: `the registry does not say what empties \`${target}\` of ${resource.name} on the wire (src/shop/resources/${resource.name}.ts \`empties\`)` };
}

/** Whether `shop` is how the export shows the field emptied by the sent `next` (its registry `reads`): a cleared field is no drift. */
export function clearedAlike(resource: ResourceDef, path: string, shop: unknown, next: unknown): boolean {
  const def = emptyOf(resource, path);
  return 'clear' in def && next === def.clear && (shop === def.clear || (def.reads ?? []).includes((shop ?? null) as string | null));
}
