/** shopsync.yaml: loading, interpolation, validation. */
export { loadConfig, parseConfigText, resolveConfigPath, formatPath, DEFAULT_CONFIG_PATH, type LoadedConfig, type LoadConfigOptions } from './load.js';
export { configSchema, shopsOf, type Config, type PipelineConfig } from './schema.js';
export { shopConfigSchema, shopClientOptions, type ShopConfig } from './shop.js';
export { dashboardConfigSchema, type DashboardConfig } from './server.js';
export { cronSchema, timezoneSchema } from './schedule.js';
export { interpolateString, resolveReference, type Reference } from './interpolate.js';
export { connectionOrigin, type OriginOf, type ValueOrigin } from './origins.js';
