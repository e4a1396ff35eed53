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
import { customersHandler } from './customers/index.js';
import { ordersHandler } from './orders/index.js';
import { ticketsHandler } from './tickets/index.js';
import { contractsHandler } from './contracts.js';
import { newsletterSubscribersHandler } from './newsletter_subscribers.js';
import { newslettersHandler } from './newsletters.js';
import { seohistoryHandler } from './seohistory.js';
import { newsdeskCategoriesHandler } from './newsdesk_categories.js';
import { newsdeskAuthorsHandler } from './newsdesk_authors.js';
import { newsdeskHandler } from './newsdesk.js';
import { projectsHandler } from './projects/index.js';
import { projectTasksHandler } from './projects/tasks.js';
import { slidersHandler } from './sliders.js';
import { faqdeskCategoriesHandler } from './faqdesk_categories.js';
import { faqdeskHandler } from './faqdesk.js';

/** Handlers by resource name (keys are registry resource names). */
export const handlers: Readonly<Record<string, ResourceHandler | undefined>> = {
  manufacturers: manufacturersHandler,
  suppliers: suppliersHandler,
  categories: categoriesHandler,
  products: productsHandler,
  customers: customersHandler,
  orders: ordersHandler,
  tickets: ticketsHandler,
  contracts: contractsHandler,
  newsletter_subscribers: newsletterSubscribersHandler,
  newsletters: newslettersHandler,
  seohistory: seohistoryHandler,
  newsdesk_categories: newsdeskCategoriesHandler,
  newsdesk_authors: newsdeskAuthorsHandler,
  newsdesk: newsdeskHandler,
  projects: projectsHandler,
  project_tasks: projectTasksHandler,
  sliders: slidersHandler,
  faqdesk_categories: faqdeskCategoriesHandler,
  faqdesk: faqdeskHandler,
};
