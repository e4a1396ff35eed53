/**
 * A create interrupted between the POST and the commit of its outcome, for a resource the shop
 * does not de-duplicate (manufacturers): the process SIGKILLs itself right after a write answer
 * arrived, so the shop holds records the state never heard of. The next run finds the open
 * intents, looks those records up in the shop and adopts them: no manufacturer exists twice.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openState } from '../../src/state/index.js';
import { clientFor, createErp, tempDir } from './support.js';
import { childArgs } from '../support/child.js';

const CHILD = fileURLToPath(new URL('./crash-creates-child.ts', import.meta.url));
const MAPPING = fileURLToPath(new URL('../../mappings/manufacturers.yaml', import.meta.url));

let dir: string;
let sandbox: SandboxHandle;
beforeAll(async () => {
  dir = tempDir('shopsync-crash-creates-');
  sandbox = await startSandbox({ seed: 'empty', dbPath: join(dir, 'shop.sqlite') });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(erpFile: string, stateFile: string, killAt: number): Promise<{ signal: NodeJS.Signals | null; code: number | null; out: string }> {
  const child = spawn(process.execPath, [...childArgs(CHILD), sandbox.url, sandbox.token, erpFile, stateFile, MAPPING, String(killAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out })));
}

describe('crash between a create and its commit', () => {
  it('never creates a manufacturer twice after SIGKILLs right after write answers', async () => {
    const erpFile = join(dir, 'erp.sqlite');
    const stateFile = join(dir, 'state.db');
    const erp = createErp(erpFile);
    erp.exec('CREATE TABLE hersteller (HerstellerNr TEXT PRIMARY KEY, Name TEXT NOT NULL, Webseite TEXT, EU TEXT, Strasse TEXT, PLZ TEXT, Ort TEXT, Land TEXT, Email TEXT, Telefon TEXT, geaendert TEXT NOT NULL)');
    const insert = erp.prepare("INSERT OR REPLACE INTO hersteller VALUES (?, ?, 'https://example.com', 'N', 'Road 1', 'SW1', 'London', 'gb', 'info@example.com', ?, ?)");
    let total = 0;
    const add = (n: number, at: string) => {
      for (let i = 0; i < n; i++, total++) insert.run(`H-${total + 1}`, `Hersteller ${total + 1}`, '0', at);
    };
    add(60, '2026-01-01 00:00:00');
    let kills = 0;
    // Each round kills after a different write answer, then adds new manufacturers and changes some old ones.
    for (const killAt of [1, 3, 2, 1, 4]) {
      const r = await run(erpFile, stateFile, killAt);
      expect(r.signal, r.out).toBe('SIGKILL');
      kills++;
      add(15, `2026-01-0${kills + 1} 00:00:00`);
      erp.prepare("UPDATE hersteller SET Telefon = ?, geaendert = ? WHERE HerstellerNr IN ('H-1', 'H-2')").run(String(kills), `2026-01-0${kills + 1} 00:00:00`);
    }
    const last = await run(erpFile, stateFile, 0);
    expect(last.out).toContain('DONE');

    const shop = clientFor(sandbox);
    const inShop: Record<string, unknown>[] = [];
    for await (const m of shop.exportAll('manufacturers')) inShop.push(m);
    await shop.close();
    expect(inShop.map((m) => m.manufacturers_name).sort()).toEqual(Array.from({ length: total }, (_, i) => `Hersteller ${i + 1}`).sort());
    const state = await openState(stateFile);
    for (const m of inShop) expect((await state.refs.get('manufacturers', `H-${String(m.manufacturers_name).slice('Hersteller '.length)}`))?.shopId).toBe(m.manufacturers_id);
    expect(await state.intents.list('manufacturers')).toEqual([]);
    expect(inShop.find((m) => m.manufacturers_name === 'Hersteller 1')!.manufacturers_gpsr_non_eu_contact_phone).toBe(String(kills));
    await state.close();
    erp.close();
  }, 60_000);
});
