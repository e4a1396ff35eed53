/**
 * The end of init: the mapping is checked against the registry as `shopsync mappings check` does,
 * then the first records run through the written config as `shopsync sync --dry-run` runs them:
 * read, mapped, guarded and compared with the shop, nothing written. The dry run keeps its state
 * in memory, so trying the config leaves no state file behind.
 */
import type { LoadedConfig } from '../config/index.js';
import { connectionOrigin, loadConfig } from '../config/index.js';
import { createSource, type Source } from '../erp/index.js';
import type { Logger } from '../log.js';
import { mappingsCheckCommand } from '../mapping/cli.js';
import { loadMapping } from '../mapping/index.js';
import { runPipeline, type RunSummary } from '../pipeline/index.js';
import { openRuntime, resolveMappingPath } from '../ops/runtime.js';

/** What the closing checks found. */
export interface Verification {
  readonly checkOk: boolean;
  readonly checkLines: readonly string[];
  readonly dryRun?: RunSummary;
}

/** A source that stops after its first `n` records and never commits (nothing is archived). */
function firstRecords(source: Source, n: number): Source {
  return {
    kind: source.kind,
    async *read(options) {
      let count = 0;
      for await (const item of source.read(options)) {
        yield item;
        if (++count >= n) return;
      }
    },
    close: () => source.close(),
  };
}

/** Check the mapping (and `alsoCheck`, e.g. the orders pull's), then dry-run the first `records` records of the pipeline. */
export async function verify(configFile: string, pipelineName: string, records: number, env: NodeJS.ProcessEnv, logger: Logger, alsoCheck: readonly string[] = []): Promise<Verification> {
  const loaded: LoadedConfig = await loadConfig(configFile, { env });
  const p = loaded.config.pipelines.find((q) => q.name === pipelineName);
  if (!p?.source) throw new Error(`the written config has no push pipeline ${pipelineName}`);
  const mappingFile = resolveMappingPath(p.mapping, loaded.baseDir);
  const checkLines: string[] = [];
  const { exitCode } = await mappingsCheckCommand([mappingFile, ...alsoCheck], (l) => checkLines.push(l));
  if (exitCode !== 0) return { checkOk: false, checkLines };

  // The dry run reads references from a state of its own: nothing of the user's state is created yet.
  const runtime = await openRuntime({ ...loaded, state: { kind: 'sqlite', path: ':memory:' }, statePath: ':memory:' }, { logger });
  try {
    const { connection, ...settings } = p.source;
    const connector = loaded.config.connections[connection];
    if (!connector) throw new Error(`the written config has no connection ${connection}`);
    // Init has just read the file, so it is complete: no settle time for the dry run.
    const sourceSettings = connector.kind === 'files' ? { ...settings, stability: { mode: 'settle', settleMs: 0 } } : settings;
    const ctx = { logger: logger.child({ pipeline: p.name }), baseDir: loaded.baseDir, env, origin: connectionOrigin(loaded, connection, { pipeline: loaded.config.pipelines.indexOf(p), side: 'source' }) };
    const dryRun = await runPipeline(
      { ...p, options: { ...p.options, pageSize: Math.min(p.options.pageSize, records) } },
      {
        state: runtime.state,
        shop: runtime.shopOf(p),
        mapping: await loadMapping(mappingFile),
        source: async () => firstRecords(await createSource(connector, sourceSettings as never, ctx), records),
        logger,
      },
      { mode: 'dry-run' },
    );
    return { checkOk: true, checkLines, dryRun };
  } finally {
    await runtime.close();
  }
}
