/**
 * A trigger that does not fit its pipeline's source is refused before the daemon starts: `shopsync
 * config check` and `shopsync doctor` (the compiled CLI) report NOTIFY on a SQLite source, `watch`
 * on a SQL source and `poll` on a file source with the very message the daemon refuses to start with.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { ensureBuilt, runCli, tempDir } from './support.js';

const PIPELINE = (name: string, source: string, trigger: string) => `  - name: ${name}
    direction: push
    resource: products
    mapping: p.yaml
    schedule: "0 3 * * *"
    source: ${source}
    trigger: ${trigger}
`;
const SQL = '{ connection: erp, query: "SELECT * FROM products", cursor: updated_at, key: sku }';
const FILES = '{ connection: drop, folder: inbox, format: csv, key: sku }';

function writeConfig(dir: string, pipelines: string): string {
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(
    file,
    `shop: { baseUrl: "http://127.0.0.1:9/api", token: shop-token-0001 }
connections:
  erp: { kind: sqlite, path: erp.sqlite }
  drop: { kind: files, folder: . }
pipelines:
${pipelines}state: { path: state.db }
dashboard: { port: 0 }
`,
  );
  return file;
}

interface CheckJson {
  ok: boolean;
  triggers: { pipeline: string; kind: string; code: string; message: string }[];
}

describe('triggers that do not fit their source, before the daemon starts', () => {
  let config: string;
  let fine: string;

  beforeAll(async () => {
    await ensureBuilt();
    config = writeConfig(tempDir('shopsync-cli-trigger-check-'), PIPELINE('stock', SQL, '{ notify: true }') + PIPELINE('drops', SQL, '{ watch: true }') + PIPELINE('files', FILES, '{ poll: 2s }'));
    fine = writeConfig(tempDir('shopsync-cli-trigger-fine-'), PIPELINE('stock', SQL, '{ poll: 2s }') + PIPELINE('drops', FILES, '{ watch: true }'));
  }, 300_000);

  it('config check names each one with its code and exits 1', async () => {
    const text = await runCli(['config', 'check', '--config', config]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain('FAIL pipeline stock: trigger.notify [TRIGGER_NOTIFY_NOT_POSTGRES] pipeline "stock": trigger.notify needs a PostgreSQL source (LISTEN/NOTIFY); its connection "erp" is sqlite');
    expect(text.stdout).toContain('FAIL pipeline drops: trigger.watch [TRIGGER_WRONG_SOURCE] pipelines[drops].trigger.watch needs a source on a files connection; connection "erp" is sqlite');
    expect(text.stdout).toContain('FAIL pipeline files: trigger.poll [TRIGGER_WRONG_SOURCE] pipelines[files].trigger.poll needs a source on a mysql or postgres or sqlite connection; connection "drop" is files');
    expect(text.stdout).toMatch(/FAIL: .*3 trigger\(s\) the daemon would refuse/);

    const json = await runCli(['config', 'check', '--json', '--config', config]);
    expect(json.code, json.stderr).toBe(1);
    const parsed = JSON.parse(json.stdout) as CheckJson;
    expect(parsed.ok).toBe(false);
    expect(parsed.triggers.map((t) => [t.pipeline, t.kind, t.code])).toEqual([
      ['stock', 'notify', 'TRIGGER_NOTIFY_NOT_POSTGRES'],
      ['drops', 'watch', 'TRIGGER_WRONG_SOURCE'],
      ['files', 'poll', 'TRIGGER_WRONG_SOURCE'],
    ]);
  });

  it('says what the daemon says when it refuses to start', async () => {
    const parsed = JSON.parse((await runCli(['config', 'check', '--json', '--config', config])).stdout) as CheckJson;
    await expect(startDaemon(await loadConfig(config, { env: {} }), { logger: silentLogger })).rejects.toThrow(parsed.triggers[0]!.message);
  });

  it('doctor fails a check per trigger with the same message', async () => {
    const doctor = await runCli(['doctor', '--json', '--config', config]);
    expect(doctor.code, doctor.stderr).toBe(1);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string }[] }).checks.filter((c) => c.name.includes('trigger.'));
    const parsed = JSON.parse((await runCli(['config', 'check', '--json', '--config', config])).stdout) as CheckJson;
    expect(checks).toEqual(parsed.triggers.map((t) => ({ name: `pipeline ${t.pipeline}: trigger.${t.kind}`, ok: false, pipeline: t.pipeline, detail: `[${t.code}] ${t.message}` })));
  });

  it('finds nothing to say about triggers that fit their sources', async () => {
    const check = await runCli(['config', 'check', '--json', '--config', fine]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect((JSON.parse(check.stdout) as CheckJson).triggers).toEqual([]);
  });
});
