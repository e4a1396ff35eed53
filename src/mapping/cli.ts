/**
 * The `shopsync mappings check|preview` commands as functions: they return data and an exit code
 * and print only through the `write(line)` callback they are given (the CLI wires it to stdout).
 */
import { MappingError } from '../errors.js';
import { loadMapping, checkMappings, mappingFiles, type CheckReport } from './load.js';
import { MappingFileError } from './problems.js';
import type { Finding, LoadOptions, MappingContext, MappingResult } from './types.js';

/** Where command output goes. */
export type WriteLine = (line: string) => void;

/** `shopsync mappings check [files…]`: exit 0 when every file compiles, 1 otherwise. */
export async function mappingsCheckCommand(
  files: readonly string[],
  write: WriteLine,
  options: LoadOptions & { /** Folder checked when no file is given. @default 'mappings' */ readonly dir?: string } = {},
): Promise<{ exitCode: number; report: CheckReport }> {
  let list: readonly string[];
  try {
    list = files.length > 0 ? files : await mappingFiles(options.dir ?? 'mappings');
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    write(`error ${err.message}`);
    return { exitCode: 1, report: { ok: false, files: [] } };
  }
  if (list.length === 0) {
    // Checking nothing must not look like a pass.
    write(`error no mapping files (*.yaml, *.yml) in ${options.dir ?? 'mappings'}`);
    return { exitCode: 1, report: { ok: false, files: [] } };
  }
  const report = await checkMappings(list, options);
  for (const f of report.files) {
    if (f.ok) write(`ok    ${f.file} (${f.name})`);
    else for (const p of f.problems) write(`error ${p.message}`);
    for (const w of f.warnings ?? []) write(`warning [${w.code}] ${f.file}: ${w.message}`);
  }
  const bad = report.files.filter((f) => !f.ok).length;
  write(bad === 0 ? `${report.files.length} mapping file(s) valid` : `${bad} of ${report.files.length} mapping file(s) invalid`);
  return { exitCode: bad === 0 ? 0 : 1, report };
}

/** One previewed record. */
export interface PreviewRecord {
  readonly index: number;
  readonly source: Record<string, unknown>;
  readonly result: MappingResult;
}

/** Options of `shopsync mappings preview`. */
export interface PreviewOptions extends LoadOptions {
  /** Sample records: .csv, .json or .ndjson. */
  readonly input: string;
  /** Records shown at most. @default 10 */
  readonly limit?: number;
  /** Resolves external references (the CLI passes the state store's); without it every lookup is reported as unknown. */
  readonly lookupReference?: MappingContext['lookupReference'];
}

const json = (v: unknown) => JSON.stringify(v);

/**
 * `shopsync mappings preview <mapping> --input <file> [--limit N]`: each source record beside its
 * payload and every guard-rail finding. Exit 0 when all shown records map, 1 when any fails,
 * 2 when the mapping or the input cannot be read.
 */
export async function mappingsPreviewCommand(mappingFile: string, options: PreviewOptions, write: WriteLine): Promise<{ exitCode: number; records: PreviewRecord[] }> {
  let records: Record<string, unknown>[];
  let mapping;
  try {
    mapping = await loadMapping(mappingFile, options);
    // The input readers (csv-parse, iconv-lite) load here: a run compiles mappings without them.
    records = await (await import('./input.js')).readRecords(options.input);
  } catch (err) {
    if (err instanceof MappingFileError) for (const p of err.problems) write(`error ${p.message}`);
    else if (err instanceof MappingError) write(`error ${err.message}`);
    else throw err;
    return { exitCode: 2, records: [] };
  }
  const ctx: MappingContext = { lookupReference: options.lookupReference ?? (() => undefined) };
  const shown = records.slice(0, options.limit ?? 10);
  const out: PreviewRecord[] = [];
  let failed = 0;
  write(`${mapping.name} (${mapping.direction}${mapping.resource ? `, ${mapping.resource}` : ''}${mapping.operation ? ` ${mapping.operation}` : ''}): ${shown.length} of ${records.length} record(s) from ${options.input}`);
  for (const [i, source] of shown.entries()) {
    const result = mapping.applySync ? mapping.applySync(source, ctx) : await mapping.apply(source, ctx);
    out.push({ index: i, source, result });
    const key = source[mapping.key];
    write('');
    write(`#${i + 1} ${mapping.key}=${key === undefined ? '?' : String(key)}  ${result.ok ? 'ok' : 'REFUSED'}`);
    write(`  source:  ${json(source)}`);
    if (result.ok) write(`  payload: ${json(result.payload)}`);
    else {
      failed++;
      for (const e of result.errors) write(`  ${e.code.startsWith('GUARD_') ? 'guard' : 'error'} [${e.code}] ${e.message}${e.sourceValue !== undefined ? ` (source value ${json(e.sourceValue)})` : ''}`);
    }
    for (const w of result.warnings as Finding[]) write(`  warning [${w.code}] ${w.field ? `${w.field}: ` : ''}${w.message}`);
  }
  write('');
  write(`${shown.length - failed} ok, ${failed} refused`);
  return { exitCode: failed === 0 ? 0 : 1, records: out };
}
