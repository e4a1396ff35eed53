/** ERP lookups of pull mappings: config, connections and the per-run resolver. */
export { lookupsSchema, lookupDefSchema, isRpcLookup, type LookupDef, type RpcLookupDef, type SqlLookupDef } from './schema.js';
export { lookupConnections, type LookupConnections, type LookupPort, type RpcLookupClient } from './ports.js';
export { ErpLookups, LOOKUP_CODES, lookupProblems } from './resolver.js';
