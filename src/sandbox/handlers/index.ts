/**
 * The registration point of the sandbox's resource handlers: registry resource name -> handler.
 * Add a resource by importing its handler module and adding one line. Seeds run in this order,
 * so a resource whose seed refers to others (products -> manufacturers) comes after them.
 * A resource of the registry without an entry here answers 501 `Method not found`.
 */
import type { ResourceHandler } from '../handler.js';
import { manufacturersHandler } from './manufacturers.js';
import { suppliersHandler } from './suppliers.js';
import { categoriesHandler } from './categories.js';
import { productsHandler } from './products/index.js';
import { ticketsHandler } from './tickets/index.js';

/** Handlers by resource name (keys are registry resource names). */
export const handlers: Readonly<Record<string, ResourceHandler | undefined>> = {
  manufacturers: manufacturersHandler,
  suppliers: suppliersHandler,
  categories: categoriesHandler,
  products: productsHandler,
  tickets: ticketsHandler,
};
