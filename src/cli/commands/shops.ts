/** `shopsync shops list|resume`: the shops' failure streaks and pauses (docs/operations.md, "A shop failing for days"). */
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { table, when } from '../format.js';
import { withRuntime } from '../session.js';

/** Register the command. */
export function shopsCommand(ctx: CliContext): Command {
  const shops = new Command('shops').description('the shops: failed runs in a row and pauses; resume a paused shop');
  shops
    .command('list')
    .description('every configured shop with its failed runs in a row, since when, and whether it is paused')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
        const { shopsOf } = await import('../../config/index.js');
        const streaks = new Map((await runtime.state.streaks.list()).map((s) => [s.shop, s]));
        const rows = Object.keys(shopsOf(loaded.config)).map((shop) => {
          const s = streaks.get(shop);
          const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
          return { shop, paused: s?.pausedAt != null, pausedAt: iso(s?.pausedAt), pausedReason: s?.pausedReason ?? null, failedRuns: s?.failures ?? 0, failingSince: iso(s?.failingSince), lastError: s?.lastError ?? null };
        });
        if (opts.json) {
          ctx.print(JSON.stringify({ shops: rows }, null, 2));
          return;
        }
        ctx.print(table(['SHOP', 'STATE', 'FAILED RUNS', 'FAILING SINCE', 'LAST ERROR'], rows.map((r) => [r.shop, r.paused ? `PAUSED ${when(r.pausedAt)}` : r.failedRuns > 0 ? 'failing' : 'ok', String(r.failedRuns), when(r.failingSince), (r.lastError ?? '').slice(0, 120)])));
      });
    });
  shops
    .command('resume')
    .description('resume a shop paused after failing for long: its scheduled runs go ahead again and its failure count starts from 0')
    .argument('<shop>', 'shop name from the config (`default` for `shop:`)')
    .action(async (shop: string, _opts: unknown, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
        const { shopsOf } = await import('../../config/index.js');
        const known = Object.keys(shopsOf(loaded.config));
        if (!known.includes(shop)) throw new UsageError(`no shop named "${shop}"; known: ${known.join(', ')}`);
        if (await runtime.state.streaks.resume(shop)) ctx.print(`shop ${shop} resumed: its scheduled runs go ahead again (the shop-paused alert resolves within a minute)`);
        else ctx.print(`shop ${shop} was not paused; nothing to do`);
      });
    });
  return shops;
}
