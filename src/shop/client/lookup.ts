/** Finding a resource and one of its operations in the registry, with typed errors when absent. */
import { MethodNotFoundError } from '../errors.js';
import { getResource, type OperationDef, type ResourceDef, type ResourceOps } from '../registry/index.js';

/** The registered resource of that name; MethodNotFoundError (client side, no request sent) when unknown. */
export function resourceOf(name: string): ResourceDef {
  try {
    return getResource(name);
  } catch (err) {
    throw new MethodNotFoundError('METHOD_NOT_FOUND', err instanceof Error ? err.message : `Unknown shop resource \`${name}\``, { record: { resource: name } });
  }
}

/** A standard operation of a resource; MethodNotFoundError naming what the resource offers when it has none. */
export function opOf<K extends Exclude<keyof ResourceOps, 'extra'>>(resource: ResourceDef, kind: K): NonNullable<ResourceOps[K]> {
  const op = resource.ops[kind];
  if (!op) {
    const offered = Object.keys(resource.ops).join(', ');
    throw new MethodNotFoundError('METHOD_NOT_FOUND', `${resource.label} (${resource.name}) has no ${kind} operation; it offers: ${offered}`, { record: { resource: resource.name } });
  }
  return op as NonNullable<ResourceOps[K]>;
}

/** A resource-specific operation (contract `status`, ticket `claims`…) of a resource. */
export function extraOf(resourceName: string, name: string): { resource: ResourceDef; op: OperationDef } {
  const resource = resourceOf(resourceName);
  const op = resource.ops.extra?.[name];
  if (!op) throw new MethodNotFoundError('METHOD_NOT_FOUND', `${resource.label} (${resource.name}) has no \`${name}\` operation in the registry`, { record: { resource: resource.name } });
  return { resource, op };
}
