/**
 * The hand-written script of the throughput benchmark, as a process of its own: what a user writes
 * in an afternoon instead of shopsync. It reads the ERP table in pages of 1,000 (with the group
 * prices), maps each row by hand, POSTs batches, keeps a few requests in flight, waits out
 * `Retry-After` on 429 and keeps no state. It loads nothing but better-sqlite3 (no zod, no
 * shopsync module), as such a script would.
 * `node script-child.js <erpFile> <records> <batch> <inFlight>` with SHOP_URL and SHOP_TOKEN set;
 * prints one JSON line `{"records":…,"failed":…}` at the end. The naive contender is this script
 * with batch 1 and 1 in flight.
 */
import { mapByHand, readCatalog } from './catalog.js';

const [erpFile, records, batch, inFlight] = process.argv.slice(2);
const url = process.env.SHOP_URL;
const token = process.env.SHOP_TOKEN;
const limit = Number(records);
const batchSize = Number(batch);
const maxInFlight = Number(inFlight);
if (!erpFile || !url || !token || ![limit, batchSize, maxInFlight].every((n) => Number.isInteger(n) && n >= 1)) {
  process.stderr.write('usage: SHOP_URL=… SHOP_TOKEN=… node script-child.js <erpFile> <records> <batch> <inFlight> (whole numbers from 1)\n');
  process.exit(2);
}

let failed = 0;

/** POST one batch; waits out 429 with Retry-After and tries again. */
async function post(batchRecords: Record<string, unknown>[]): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/import/json/products`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'products', data: batchRecords }) });
    if (res.status === 429) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      continue;
    }
    const body = (await res.json()) as { data?: unknown[] };
    failed += res.ok ? batchRecords.length - (body.data?.length ?? 0) : batchRecords.length;
    return;
  }
}

const pending = new Set<Promise<void>>();
let sent = 0;
for (const page of readCatalog(erpFile, limit)) {
  for (let i = 0; i < page.length; i += batchSize) {
    const rows = page.slice(i, i + batchSize).map(mapByHand);
    sent += rows.length;
    const p: Promise<void> = post(rows).finally(() => pending.delete(p));
    pending.add(p);
    if (pending.size >= maxInFlight) await Promise.race(pending);
  }
}
await Promise.all(pending);
process.stdout.write(`${JSON.stringify({ records: sent, failed })}\n`);
