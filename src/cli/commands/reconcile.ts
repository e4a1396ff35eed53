/** `shopsync reconcile <pipeline> [--json] [--csv <file>] [--repair]`: compare the ERP with the shop. */
import { copyFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { ReconcileReport } from '../../reconcile/index.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit.js';
import { exitCodeOfRun } from '../format.js';
import { withRuntime } from '../session.js';
import { onStopSignal } from '../signals.js';

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** The human summary of a report. */
export function reconcileText(r: ReconcileReport, csvPath: string | undefined): string[] {
  const c = r.counts;
  const lines = [
    `${r.pipeline} reconcile (${r.resource} in shop ${r.shop}, paired by ${r.matchBy === 'shopKey' ? `shop key ${r.shopKey}` : 'stored reference'}) in ${(r.durationMs / 1000).toFixed(1)} s: drift ${r.drift}`,
    `  ERP ${c.erp}, shop ${c.shop}, paired ${c.matched}`,
    `  only in the ERP:  ${c.onlyInErp}${r.onlyInErp.length ? ` (${r.onlyInErp.slice(0, 5).map((e) => e.erpKey).join(', ')}${c.onlyInErp > 5 ? ', …' : ''})` : ''}`,
    `  only in the shop: ${c.onlyInShop}${r.onlyInShop.length ? ` (${r.onlyInShop.slice(0, 5).map((e) => e.shopKey || `id ${e.shopId}`).join(', ')}${c.onlyInShop > 5 ? ', …' : ''})` : ''}`,
    `  different:        ${c.different}${Object.keys(r.fields).length ? ` (fields: ${Object.entries(r.fields).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([f, n]) => `${f} ${n}`).join(', ')})` : ''}`,
  ];
  for (const d of r.different.slice(0, 10)) lines.push(`    ${d.erpKey} → shop ${d.shopId}: ${d.fields.map((f) => `${f.field} ${show(f.shop)} → ${show(f.erp)}${f.reserved !== undefined ? ` (ERP ${f.onHand ?? '?'} − ${f.reserved} unbooked)` : ''}`).join('; ')}`);
  if (c.conflicts) {
    lines.push(`  conflicts (guarded fields edited in the shop; not drift, never repaired): ${c.conflicts}; decide with \`shopsync conflicts resolve ${r.pipeline} <erpKey> --take erp|shop\``);
    for (const k of (r.conflicts ?? []).slice(0, 10)) lines.push(`    ${k.erpKey} → shop ${k.shopId}: ${k.field} shop ${show(k.shop)}, last sent ${'sent' in k ? show(k.sent) : 'unknown'}, ERP ${show(k.erp)}`);
  }
  if (c.retired) lines.push(`  deactivated in the shop, gone from the ERP (not drift): ${c.retired}`);
  const res = r.reservations;
  if (res?.stock === 'reserved') lines.push(`  reserved: ${res.units} unit(s) of ${res.orders} unbooked shop order(s) subtracted from ${res.records} record(s) (stock compared as ERP − unbooked)`);
  else if (res?.stock === 'available') lines.push('  stock: available (the ERP figure compared as it is)');
  else if (res?.stock === 'missing') lines.push('  stock: the mapping says neither stock: reserved nor stock: available [STOCK_CHOICE_MISSING]; the ERP figure was compared as it is, and a repair can raise stock the shop has sold');
  if (c.refused) lines.push(`  refused by the mapping (not compared): ${c.refused}${r.refused[0] ? ` (first: ${r.refused[0].erpKey} [${r.refused[0].code}])` : ''}`);
  if (r.repair) {
    const p = r.repair;
    lines.push(`  repair run ${p.runId} ${p.status}: pushed ${p.pushed} (created ${p.created}, updated ${p.updated}, failed ${p.failed}), deactivated ${p.deactivated}, deleted ${p.deleted}`);
    if (p.shopOnly) lines.push(`    shop-only records: ${p.shopOnly}`);
    if (p.error && !p.shopOnly?.startsWith(p.error.code)) lines.push(`    error: [${p.error.code}] ${p.error.message}`);
  }
  if (csvPath) lines.push(`  CSV report: ${csvPath}`);
  return lines;
}

/** Register the command. */
export function reconcileCommand(ctx: CliContext): Command {
  return new Command('reconcile')
    .description('compare what a push pipeline would send with what the shop has: records only in the ERP, only in the shop, and differing fields')
    .argument('<pipeline>', 'push pipeline name from the config')
    .option('--json', 'print the report as JSON')
    .option('--csv <file>', 'also copy the CSV report (every entry) to this file')
    .option('--repair', 'push the drifted records through the pipeline (guard rails, dead letters) and apply options.onMissing to shop-only records')
    .option('--allow-mass-delete', 'with --repair: let it deactivate or delete more shop-only records than options.massDelete allows')
    .addHelpText(
      'after',
      `
Reads the whole ERP source and the whole shop export; writes nothing unless --repair is given.
Reports are kept beside the state (reconcile/<pipeline>/) and shown on the dashboard's Reconcile
page. Exit code 0 when nothing drifts (or everything was repaired), 1 when drift remains.`,
    )
    .action(async (name: string, opts: { json?: boolean; csv?: string; repair?: boolean; allowMassDelete?: boolean }, cmd: Command) => {
      const stop = onStopSignal();
      try {
        await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
          const report = await runtime.reconcile(name, { signal: stop.signal, ...(opts.repair ? { repair: true } : {}), ...(opts.allowMassDelete ? { allowMassDelete: true } : {}) });
          const csv = await runtime.reports.csvFile(report.pipeline, report.id);
          if (opts.csv && csv) await copyFile(csv, resolve(opts.csv));
          if (opts.json) ctx.print(JSON.stringify(report, null, 2));
          else for (const line of reconcileText(report, opts.csv ? resolve(opts.csv) : csv)) ctx.print(line);
          // A repair run's status decides when there was one (0 only when it succeeded); otherwise the drift.
          if (report.repair) ctx.exitCode = exitCodeOfRun(report.repair);
          else ctx.exitCode = report.drift === 0 ? EXIT.ok : EXIT.failed;
        });
      } finally {
        stop.dispose();
      }
    });
}
