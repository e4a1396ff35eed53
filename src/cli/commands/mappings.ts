/** `shopsync mappings check|preview`: validate mapping files and try them on sample records. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { parsePositive } from '../args.js';
import type { CliContext } from '../context.js';
import { errorLine } from '../../errors.js';

/** Register the command group. */
export function mappingsCommand(ctx: CliContext): Command {
  const mappings = new Command('mappings').description('check mapping files and preview what they make of sample records');

  mappings
    .command('check')
    .description('compile mapping files against the shop registry and report every problem with file:line:column')
    .argument('[files...]', 'mapping files (default: every file in ./mappings, or the mappings shipped with shopsync)')
    .option('--json', 'print the report as JSON')
    .option('--source', "also read each push pipeline's source (the config's, see -c) and check that it has every column the mapping reads")
    .addHelpText('after', '\nExit code 0 when every file is valid (and with --source every column is there), 1 when not.')
    .action(async (files: string[], opts: { json?: boolean; source?: boolean }, cmd: Command) => {
      const { mappingsCheckCommand } = await import('../../mapping/cli.js');
      const { shippedMappingsDir } = await import('../../ops/runtime.js');
      const dir = existsSync(resolve('mappings')) ? resolve('mappings') : shippedMappingsDir();
      const lines: string[] = [];
      const { exitCode, report } = await mappingsCheckCommand(files, (l) => (opts.json ? lines.push(l) : ctx.print(l)), { dir });
      const sources = opts.source ? await sourceColumns(ctx, cmd, files) : [];
      const guards = await statusGuardWarnings(ctx, cmd, files);
      if (opts.json) {
        ctx.print(
          JSON.stringify(
            {
              ok: report.ok && sources.every((s) => !s.problem),
              files: report.files.map((f) => ({ file: f.file, ok: f.ok, name: f.name, problems: f.problems.map((p) => ({ code: p.code, message: p.message, line: p.line, column: p.column, field: p.field })) })),
              ...(opts.source ? { sources } : {}),
              ...(guards.length > 0 ? { pipelineWarnings: guards.map((w) => ({ pipeline: w.pipeline, file: w.file, code: w.code, message: w.message })) } : {}),
            },
            null,
            2,
          ),
        );
      } else {
        for (const w of guards) ctx.print(`warning [${w.code}] pipeline ${w.pipeline} (${w.file}): ${w.message}`);
        for (const s of sources) {
          const problem = 'unreadable' in s ? s.problem : `[MAPPING_SOURCE_COLUMN_MISSING] ${s.problem}`;
          ctx.print(s.problem ? `source columns: pipeline ${s.pipeline}: ${problem}` : `source columns: pipeline ${s.pipeline}: every column ${s.mapping} reads is there (${s.records} record(s) looked at)`);
        }
      }
      ctx.exitCode = sources.some((s) => s.problem) ? Math.max(exitCode, 1) : exitCode;
    });

  mappings
    .command('preview')
    .description('apply a mapping to sample records and show each source record, its payload and every guard-rail finding')
    .argument('<mapping>', 'mapping file')
    .requiredOption('-i, --input <file>', 'sample records: .csv, .json or .ndjson')
    .option('-n, --limit <n>', 'records shown at most', parsePositive, 10)
    .option('--json', 'print the results as JSON')
    .option('--with-state', 'resolve references (manufacturer, category ids…) from the state database of the config')
    .addHelpText('after', '\nExit code 0 when every shown record maps, 1 when any is refused, 2 when the mapping or the input cannot be read.')
    .action(async (mappingFile: string, opts: { input: string; limit: number; json?: boolean; withState?: boolean }, cmd: Command) => {
      const { mappingsPreviewCommand } = await import('../../mapping/cli.js');
      const preview = async (lookupReference?: (resource: string, erpKey: string) => string | number | undefined) => {
        const { exitCode, records } = await mappingsPreviewCommand(mappingFile, { input: opts.input, limit: opts.limit, ...(lookupReference ? { lookupReference } : {}) }, opts.json ? () => undefined : (l) => ctx.print(l));
        if (opts.json) ctx.print(JSON.stringify(records.map((r) => ({ index: r.index, source: r.source, ok: r.result.ok, payload: r.result.ok ? r.result.payload : undefined, errors: r.result.ok ? [] : r.result.errors.map((e) => ({ code: e.code, message: e.message, field: e.field })), warnings: r.result.warnings })), null, 2));
        ctx.exitCode = exitCode;
      };
      if (!opts.withState) return preview();
      const { withRuntime } = await import('../session.js');
      const { ReferenceCache } = await import('../../pipeline/references.js');
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        // The mapping looks references up synchronously: a silent first pass notes what it asks, the state answers in one read, the second pass prints.
        const cache = new ReferenceCache(runtime.state);
        const asked: { resource: string; erpKey: string }[] = [];
        await mappingsPreviewCommand(mappingFile, { input: opts.input, limit: opts.limit, lookupReference: cache.context(asked).lookupReference }, () => undefined);
        await cache.load(asked);
        await preview((resource, erpKey) => cache.lookup(resource, erpKey));
      });
    });
  return mappings;
}

/**
 * SHOP_STATUS_GUARD_MISSING of the config's status pushes (those whose mapping is among `files`,
 * when given). It is a pipeline's warning, so only where a config loads: checking mapping files
 * without one (or with a config that does not load, which `config check` reports) shows none.
 */
async function statusGuardWarnings(ctx: CliContext, cmd: Command, files: readonly string[]) {
  let loaded;
  try {
    loaded = await ctx.config(cmd);
  } catch {
    return [];
  }
  const { shopStatusWarnings } = await import('../../follow/guardCheck.js');
  return shopStatusWarnings(loaded, new Set(files.map((f) => resolve(f))));
}

/** The column reports of the config's push pipelines (those whose mapping is among `files`, when given). */
async function sourceColumns(ctx: CliContext, cmd: Command, files: readonly string[]) {
  const loaded = await ctx.config(cmd);
  const logger = ctx.logger(cmd, 'stderr', loaded.config.log.level);
  const { checkSourceColumns } = await import('../../ops/columns.js');
  const { resolveMappingPath } = await import('../../ops/runtime.js');
  const wanted = new Set(files.map((f) => resolve(f)));
  const reports = [];
  for (const p of loaded.config.pipelines) {
    if (wanted.size > 0 && !wanted.has(resolveMappingPath(p.mapping, loaded.baseDir))) continue;
    // A source that cannot be read is that pipeline's problem: the others are still checked.
    const report = await checkSourceColumns(loaded, p, logger).catch((err: unknown) => ({ pipeline: p.name, mapping: p.mapping, records: 0, problem: errorLine(err), unreadable: true }));
    if (report) reports.push(report);
  }
  return reports;
}
