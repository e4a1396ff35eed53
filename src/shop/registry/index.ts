/**
 * The resource registry: every resource of the Shop Administration JSON API, described once.
 * Add a resource by writing `src/shop/resources/<name>.ts` and listing it here; the registry
 * test compares this list with every path in the spec.
 */
import type { ResourceDef } from './types.js';
import { products } from '../resources/products.js';
import { orders } from '../resources/orders.js';
import { customers } from '../resources/customers.js';

export * from './types.js';

/** All resources by name. */
export const resources = {
  products,
  orders,
  customers,
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
