/** `shopsync config check|print`: is the config (every shop file) valid, and what does it come to. */
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit.js';
import { errorLine } from '../../errors.js';

/** Register the command group. */
export function configCommand(ctx: CliContext): Command {
  const config = new Command('config').description('check the config with its shop files, or print what it comes to (templates expanded, secrets masked)');

  config
    .command('check')
    .description("load the config and its shop files, expand the templates, compile every pipeline's mapping with its shop's variables and check that each trigger fits its source")
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Exit code 0 when everything loads, 1 when a shop is broken, a pipeline's mapping does not compile
(each named with file:line) or a trigger does not fit its pipeline's source (notify on a source that
is not PostgreSQL, watch on one that is not files, poll on one that is not SQL), 2 when the config
itself does not load.`,
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const loaded = await ctx.config(cmd);
      const { loadMapping } = await import('../../mapping/index.js');
      const { resolveMappingPath } = await import('../../ops/runtime.js');
      const { shopsOf } = await import('../../config/index.js');
      const mappings: { pipeline: string; shop: string; ok: boolean; problem?: string }[] = [];
      for (const p of loaded.config.pipelines) {
        try {
          const mapping = await loadMapping(resolveMappingPath(p.mapping, loaded.baseDir), { vars: p.vars });
          const { lookupProblems } = await import('../../pipeline/lookups/index.js');
          const [unknownLookup] = lookupProblems(p.name, p.lookups, mapping.erpLookups, mapping.file);
          mappings.push({ pipeline: p.name, shop: p.shop, ok: unknownLookup === undefined, ...(unknownLookup ? { problem: unknownLookup } : {}) });
        } catch (err) {
          mappings.push({ pipeline: p.name, shop: p.shop, ok: false, problem: errorLine(err) });
        }
      }
      // What the daemon would refuse at start (NOTIFY on a source that cannot NOTIFY…), said now: each trigger kind's own check.
      const { triggerProblems } = await import('../../triggers/index.js');
      const triggers = triggerProblems(loaded.config);
      const ok = loaded.brokenShops.length === 0 && mappings.every((m) => m.ok) && triggers.length === 0;
      const shops = Object.keys(shopsOf(loaded.config));
      const fromTemplates = loaded.config.pipelines.filter((p) => p.template !== undefined).length;
      if (opts.json) {
        ctx.print(JSON.stringify({ ok, config: loaded.file, shops, brokenShops: loaded.brokenShops, pipelines: mappings, triggers, warnings: loaded.warnings }, null, 2));
      } else {
        for (const w of loaded.warnings) ctx.say(`warning: ${w}`);
        for (const b of loaded.brokenShops) ctx.print(`BROKEN shop ${b.name} (${b.file}:${b.line}): its pipelines do not run${b.pipelines.length ? ` (${b.pipelines.join(', ')})` : ''}\n  ${b.message.split('\n').join('\n  ')}`);
        for (const m of mappings) if (!m.ok) ctx.print(`FAIL pipeline ${m.pipeline}: ${m.problem}`);
        for (const t of triggers) ctx.print(`FAIL pipeline ${t.pipeline}: trigger.${t.kind} [${t.code}] ${t.message}`);
        ctx.print(
          `${ok ? 'ok' : 'FAIL'}: ${loaded.file}: ${shops.length} shop(s) loaded${loaded.brokenShops.length ? `, ${loaded.brokenShops.length} broken` : ''}; ${loaded.config.pipelines.length} pipeline(s) (${fromTemplates} from templates)${mappings.some((m) => !m.ok) ? `, ${mappings.filter((m) => !m.ok).length} with a mapping that does not compile` : ''}${triggers.length ? `, ${triggers.length} trigger(s) the daemon would refuse` : ''}`,
        );
      }
      ctx.exitCode = ok ? EXIT.ok : EXIT.failed;
    });

  config
    .command('print')
    .description('print the effective config: defaults applied, shop files merged, templates expanded per shop, secrets masked')
    .option('--shop <name>', 'only this shop: its settings, its pipelines and the connections they use')
    .option('--json', 'print JSON instead of YAML')
    .addHelpText('after', '\nExit code 0, or 1 when the shop asked for is broken (its problem is printed), 2 when the config does not load or names no such shop.')
    .action(async (opts: { shop?: string; json?: boolean }, cmd: Command) => {
      const loaded = await ctx.config(cmd);
      const { configView, shopView } = await import('../../config/print.js');
      const view = opts.shop === undefined ? configView(loaded) : shopView(loaded, opts.shop);
      // yaml is CommonJS: its exports are the module's default (in the bundle, only there).
      const { stringify } = (await import('yaml')).default;
      ctx.print(opts.json ? JSON.stringify(view, null, 2) : stringify(view, { lineWidth: 0 }));
      if (opts.shop !== undefined && (view as { status?: string }).status === 'broken') ctx.exitCode = EXIT.failed;
    });

  return config;
}
