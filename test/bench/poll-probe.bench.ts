/**
 * The cost of one short-polling probe (trigger.poll, src/erp/sql/probe.ts) on MariaDB: a table of
 * 100,000 products with an index on (updated_at, sku), the stored cursor at its newest row (the
 * idle case: nothing newer, which is what a probe sees almost always), probed through shopsync's
 * own MariaDB driver 2,000 times after 100 untimed ones. Printed: the median, p95 and mean ms per
 * probe, the same with one row newer than the cursor (the probe finds it), the same idle probe on a
 * copy of the table without the index (what a missing index costs), and MariaDB's EXPLAIN of the
 * idle probe. Needs the test server (127.0.0.1:3306, database `test`, user root; MYSQL_URL points
 * elsewhere); the tables are its own and dropped afterwards. BENCH_QUICK=1: 500 probes.
 */
import mysql from 'mysql2/promise';
import { openSqlReader, sqlSourceSchema, type CursorPosition, type SqlDriver } from '../../src/erp/index.js';
import { hasNewer, probeQuery } from '../../src/erp/sql/probe.js';
import { silentLogger } from '../../src/log.js';
import { median, QUICK, table } from './support/report.js';

const ROWS = 100_000;
const PROBES = QUICK ? 500 : 2_000;
const WARM = 100;
const URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

function p95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

async function timeProbes(driver: SqlDriver, tableName: string, after: CursorPosition, n: number): Promise<{ times: number[]; found: boolean }> {
  const cfg = sqlSourceSchema.parse({ query: `SELECT sku, name, price, qty, updated_at FROM ${tableName}`, cursor: 'updated_at', key: 'sku' });
  let found = false;
  for (let i = 0; i < WARM; i++) found = await hasNewer(driver, cfg, after);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    found = await hasNewer(driver, cfg, after);
    times.push(performance.now() - t);
  }
  return { times, found };
}

/** Median, p95 and mean of a series of ms, as printed. */
function row(label: string, r: { times: number[]; found: boolean }): string[] {
  const mean = r.times.reduce((a, b) => a + b, 0) / r.times.length;
  return [label, String(r.found), median(r.times).toFixed(3), p95(r.times).toFixed(3), mean.toFixed(3)];
}

/** Run the benchmark; the lines to print. */
export async function bench(): Promise<string[]> {
  let admin: mysql.Connection;
  try {
    admin = await mysql.createConnection({ uri: URL, multipleStatements: true });
  } catch (err) {
    return [`skipped: MariaDB at ${URL.replace(/\/\/[^@]*@/, '//')} does not answer (${err instanceof Error ? err.message : String(err)})`];
  }
  const t = `bench_probe_${process.pid}`;
  const bare = `${t}_noindex`;
  const driver = await openSqlReader({ kind: 'mysql', url: URL }, { logger: silentLogger, baseDir: process.cwd() });
  try {
    await admin.query(`DROP TABLE IF EXISTS ${t}, ${bare}`);
    await admin.query(`CREATE TABLE ${t} (sku VARCHAR(40) PRIMARY KEY, name VARCHAR(100), price DECIMAL(10,2), qty INT, updated_at DATETIME(6) NOT NULL, INDEX by_change (updated_at, sku))`);
    // 100,000 rows 10 ms apart, in batches.
    for (let start = 0; start < ROWS; start += 5_000) {
      const values = Array.from({ length: 5_000 }, (_, i) => {
        const n = start + i;
        return `('P-${String(n).padStart(6, '0')}', 'Artikel ${n}', ${(n % 1000) + 0.99}, ${n % 50}, TIMESTAMPADD(MICROSECOND, ${n * 10_000}, '2026-01-01 00:00:00'))`;
      });
      await admin.query(`INSERT INTO ${t} VALUES ${values.join(', ')}`);
    }
    await admin.query(`CREATE TABLE ${bare} AS SELECT * FROM ${t}`);
    await admin.query(`ANALYZE TABLE ${t}, ${bare}`);
    const [last] = (await admin.query(`SELECT sku, DATE_FORMAT(updated_at, '%Y-%m-%dT%H:%i:%s.%f') AS at FROM ${t} ORDER BY updated_at DESC, sku DESC LIMIT 1`)) as unknown as [{ sku: string; at: string }[]];
    const newest: CursorPosition = { value: last[0]!.at, key: last[0]!.sku };
    const idle = await timeProbes(driver, t, newest, PROBES);
    const oneBehind: CursorPosition = { value: newest.value, key: 'P-0' };
    const finding = await timeProbes(driver, t, oneBehind, PROBES);
    const unindexed = await timeProbes(driver, bare, newest, Math.min(PROBES, 200));

    const cfg = sqlSourceSchema.parse({ query: `SELECT sku, name, price, qty, updated_at FROM ${t}`, cursor: 'updated_at', key: 'sku' });
    const q = probeQuery(driver, cfg, newest);
    const [plan] = (await admin.query(`EXPLAIN ${q.sql}`, q.params)) as unknown as [Record<string, unknown>[]];
    const [version] = (await admin.query('SELECT VERSION() AS v')) as unknown as [{ v: string }[]];
    return [
      `MariaDB ${version[0]?.v}: ${ROWS.toLocaleString('en')} rows, index (updated_at, sku); ${PROBES} timed probes each (${WARM} untimed first), one connection of shopsync's pool`,
      ...table(['probe', 'found a row', 'median ms', 'p95 ms', 'mean ms'], [
        row('idle (cursor at the newest row)', idle),
        row('one row after the cursor', finding),
        row(`idle, table without the index (${unindexed.times.length} probes)`, unindexed),
      ]),
      `the probe: ${q.sql}`,
      `EXPLAIN: ${plan.map((r) => `table=${String(r.table)} type=${String(r.type)} key=${String(r.key)} rows=${String(r.rows)} extra=${String(r.Extra)}`).join(' | ')}`,
    ];
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${t}, ${bare}`).catch(() => undefined);
    await admin.end();
    await driver.close();
  }
}
