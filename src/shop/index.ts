/** Public API of the shop side: the client, its errors, the resource registry and the response schemas. */
export { createShopClient } from './client/client.js';
export { rateCaps } from './client/options.js';
export { openSharedRateLimits, sharedBudget, type SharedBudget, type SharedRateCaps, type SharedRateLimiter, type SharedRateLimits } from './rate/index.js';
export type * from './client/types.js';
export { BatchRejectedError, NotSentError } from './client/errors.js';
export { fileNameFrom } from './client/operations.js';
export * from './errors.js';
export * from './registry/index.js';
export * from './schema/envelopes.js';
export * as schemaBlocks from './schema/common.js';
