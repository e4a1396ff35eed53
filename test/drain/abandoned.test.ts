import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { childArgs } from '../support/child.js';

const sandbox = useSandbox();
const CHILD = join(import.meta.dirname, 'never-answers-child.ts');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...childArgs(CHILD), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a run whose source waits on nothing that keeps the process alive', { timeout: 90_000 }, () => {
  // The two records wait in the read-ahead for more (or the end of the source), so none was sent.
  it('is closed as failed with RUN_ABANDONED, says what it waited for and how far it got, and the process exits 5', async () => {
    const dir = tempDir('shopsync-drain-');
    writeFileSync(join(dir, 'products.yaml'), productsMapping('never-products'));
    const stateFile = join(dir, 'state.db');

    const result = await run([sandbox.url, sandbox.token, stateFile, join(dir, 'products.yaml')]);

    expect(result.code, result.stderr).toBe(5);
    expect(result.stdout).toMatch(/never sync failed \(run 1\) in [\d.]+ s: read 2, created 0,/);
    expect(result.stdout).toContain('error: [RUN_ABANDONED] run 1 of never (sync) was still open when the process had nothing left to wait on');
    expect(result.stdout).toContain('no shop request was queued, so it waited on the source, the sink or the state; so far read 2, created 0');
    expect(result.stdout).toMatch(/hint: run the same command again/);
    const db = new Database(stateFile, { readonly: true });
    const row = db.prepare('SELECT status, error, read, created FROM runs WHERE id = 1').get() as { status: string; error: string; read: number; created: number };
    db.close();
    expect(row).toMatchObject({ status: 'failed', read: 2, created: 0 });
    expect(JSON.parse(row.error)).toMatchObject({ code: 'RUN_ABANDONED' });
  });
});
