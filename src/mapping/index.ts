/**
 * The mapping layer: declarative YAML mappings compiled into plain functions, with guard rails
 * against the shop API's silent data-loss traps. See docs/mappings.md for the format.
 */
export { compileMapping, shopRegistry } from './compile.js';
export { loadMapping, loadMappings, checkMappings, mappingFiles, type CheckReport, type FileCheck } from './load.js';
export { MappingFileError } from './problems.js';
export { IGNORED_FIELDS } from './guards.js';
export type { CompiledMapping, MappingContext, MappingResult, MappingDirection, MappingOperation, Finding, LoadOptions, RegistryLike } from './types.js';
export { mappingsCheckCommand, mappingsPreviewCommand, type PreviewOptions, type PreviewRecord, type WriteLine } from './cli.js';
/** Read sample records from a JSON, NDJSON or CSV file (`./input.ts`), loaded on first use: a run never reads one. */
export async function readRecords(file: string): Promise<Record<string, unknown>[]> {
  return (await import('./input.js')).readRecords(file);
}
