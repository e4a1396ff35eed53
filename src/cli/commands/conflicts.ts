/**
 * `shopsync conflicts list|resolve`: guarded fields (`owner: guard`) the shop's people changed, and
 * the person's decision, take the ERP's value or keep the shop's (docs/mappings.md "Who owns a field").
 */
import { Command, Option } from 'commander';
import type { FieldConflict } from '../../state/index.js';
import { parsePositive } from '../args.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { table, when } from '../format.js';
import { withRuntime } from '../session.js';

/** A value as a table cell shows it. */
function cell(v: unknown): string {
  if (v === undefined) return '(unknown)';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** What a conflict's state is, in words: open, open and taking the ERP's value on the next sync, or how it ended. */
export function conflictState(c: Pick<FieldConflict, 'status' | 'resolution'>): string {
  if (c.status === 'open') return c.resolution === 'erp' ? 'open: taking ERP (next sync)' : 'open';
  return c.resolution === 'erp' ? 'resolved: ERP taken' : c.resolution === 'shop' ? 'resolved: shop kept' : 'resolved: agreed';
}

/** Register the command group. */
export function conflictsCommand(ctx: CliContext): Command {
  const conflicts = new Command('conflicts').description('guarded fields (owner: guard) edited in the shop: list them, take the ERP value or keep the shop value');

  conflicts
    .command('list')
    .description('list conflicts, open ones first, the latest seen first')
    .argument('[pipeline]', 'only this pipeline')
    .option('--all', 'resolved conflicts too')
    .option('--shop <name>', 'only pipelines of this shop')
    .option('--limit <n>', 'at most this many', parsePositive, 100)
    .option('--json', 'print as JSON')
    .action(async (pipeline: string | undefined, opts: { all?: boolean; shop?: string; limit: number; json?: boolean }, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        if (pipeline !== undefined) runtime.pipeline(pipeline);
        if (opts.shop !== undefined) runtime.shop(opts.shop);
        const found = await runtime.state.conflicts.list({ ...(pipeline !== undefined ? { pipeline } : {}), ...(opts.shop !== undefined ? { shop: opts.shop } : {}), ...(opts.all ? {} : { status: 'open' as const }), limit: opts.limit });
        if (opts.json) ctx.print(JSON.stringify(found, null, 2));
        else if (found.length === 0) ctx.print(opts.all ? 'no conflicts' : 'no open conflicts');
        else {
          ctx.print(table(['PIPELINE', 'ERP KEY', 'SHOP ID', 'FIELD', 'SHOP', 'LAST SENT', 'ERP', 'STATE', 'LAST SEEN'], found.map((c) => [c.pipeline, c.erpKey, c.shopId === undefined ? '-' : String(c.shopId), c.field, cell(c.shopValue), cell(c.sentValue), cell(c.erpValue), conflictState(c), when(c.lastSeenAt)])));
          const open = found.find((c) => c.status === 'open' && c.resolution === undefined);
          if (open) ctx.print(`\ndecide: shopsync conflicts resolve ${open.pipeline} ${open.erpKey} ${open.field} --take erp|shop`);
        }
      }, { readOnlyFallback: true });
    });

  conflicts
    .command('resolve')
    .description("decide open conflicts: --take erp sends the ERP's value once (the next sync), --take shop keeps the shop's value as the last sent")
    .argument('<pipeline>', 'the pipeline of the conflict')
    .argument('[erpKey]', 'the record (its ERP key); absent with --all: every open conflict of the pipeline')
    .argument('[field]', 'one field (target path, e.g. languages.de.products_description); absent: every open conflict of the record')
    .addOption(new Option('--take <side>', 'which value wins').choices(['erp', 'shop']).makeOptionMandatory())
    .option('--all', 'every open conflict of the pipeline (of [field] when given as --field)')
    .option('--field <path>', 'with --all: only this field')
    .option('--json', 'print the decided conflicts as JSON')
    .addHelpText('after', '\nExit code 0 when conflicts were decided, 2 when none was open as named.')
    .action(async (pipeline: string, erpKey: string | undefined, field: string | undefined, opts: { take: 'erp' | 'shop'; all?: boolean; field?: string; json?: boolean }, cmd: Command) => {
      if (erpKey === undefined && !opts.all) throw new UsageError('give the ERP key of the record (see `shopsync conflicts list`), or --all for every open conflict of the pipeline');
      if (erpKey !== undefined && opts.all) throw new UsageError('give an ERP key or --all, not both');
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        const name = runtime.pipeline(pipeline).name;
        const { resolveConflicts, resolutionText, ConflictNotFoundError } = await import('../../conflicts/index.js');
        const one = field ?? opts.field;
        try {
          const decided = await resolveConflicts(runtime.state, { pipeline: name, ...(erpKey !== undefined ? { erpKey } : {}), ...(one !== undefined ? { field: one } : {}) }, opts.take);
          ctx.print(opts.json ? JSON.stringify(decided, null, 2) : resolutionText(decided, opts.take));
        } catch (err) {
          if (err instanceof ConflictNotFoundError) throw new UsageError(err.message);
          throw err;
        }
      });
    });
  return conflicts;
}
