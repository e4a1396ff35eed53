/**
 * The shop client alone (issue 47, "less per record"), one contender per process:
 * `node client-child.js <mode> <records> <batch> <inFlight>` with SHOP_URL and SHOP_TOKEN set.
 * - `client`: `createShopClient().create` with one batch per call, as the push sends them;
 * - `fetch`: Node's fetch, as the hand-written script (script-child.ts) sends them;
 * - `http`: node:http on a keep-alive agent, the body read as one string: the floor;
 * - `axios`: raw axios configured as the client used it before wire.ts; `lean`: the same with the
 *   body serialised by hand and axios's transforms off (what tuning axios could win).
 * The payloads (the catalog mapping's output) are built before the clock starts; prints one JSON
 * line with the CPU (process.cpuUsage: every thread) and the wall time of sending them.
 */
import { Agent, request } from 'node:http';
import type { AxiosInstance } from 'axios';
import { createShopClient } from '../../../src/shop/index.js';

const [mode, records, batch, inFlight] = process.argv.slice(2);
const url = process.env.SHOP_URL!;
const token = process.env.SHOP_TOKEN!;
const n = Number(records);
const size = Number(batch);
const lanes = Number(inFlight);
const PATH = '/import/json/products';

/** What the catalog mapping (catalog.ts) sends for the i-th product. */
function payload(i: number): Record<string, unknown> {
  const price = 5 + (i % 200) / 4;
  return {
    products_model: `B-${String(i).padStart(7, '0')}`,
    products_price: price.toFixed(2),
    products_quantity: String(i % 100),
    products_status: 1,
    languages: { de: { products_name: `Artikel ${i} Edelstahl` }, en: { products_name: `Item ${i} stainless steel` } },
    groups: [
      { customers_group_id: 3, customers_group_price: (price * 0.9).toFixed(2) },
      { customers_group_id: 4, customers_group_price: (price * 0.85).toFixed(2) },
    ],
  };
}

const batches: Record<string, unknown>[][] = [];
for (let i = 1; i <= n; i += size) batches.push(Array.from({ length: Math.min(size, n - i + 1) }, (_, k) => payload(i + k)));

const client = mode === 'client' ? createShopClient({ baseUrl: url, auth: { kind: 'token', token } }) : undefined;
// Loaded only for its modes: the others should not pay for its modules.
const axios: AxiosInstance | undefined = mode === 'axios' || mode === 'lean' ? (await import('axios')).default.create({ baseURL: url, maxRedirects: 0 }) : undefined;
const agent = new Agent({ keepAlive: true });
const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json', 'Content-Type': 'application/json' };

/** How many records of a batch the shop did not confirm. */
const missing = (rows: readonly unknown[], status: number, body: unknown): number => (status === 200 ? rows.length - ((body as { data?: unknown[] }).data?.length ?? 0) : rows.length);

/** Send one batch; resolves with how many of its records the shop did not confirm. */
async function send(rows: Record<string, unknown>[]): Promise<number> {
  if (client) return (await client.create('products', rows, { batchSize: rows.length })).outcomes.filter((o) => !o.ok).length;
  const envelope = { type: 'products', data: rows };
  const common = { method: 'POST', url: PATH, headers, maxContentLength: 64 * 1024 * 1024, validateStatus: () => true, signal: new AbortController().signal } as const;
  if (axios && mode === 'axios') {
    const res = await axios.request({ ...common, data: envelope, responseType: 'json', transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: true } });
    return missing(rows, res.status, res.data);
  }
  if (axios) {
    const res = await axios.request({ ...common, data: Buffer.from(JSON.stringify(envelope)), responseType: 'text', transformRequest: [], transformResponse: [] });
    return missing(rows, res.status, JSON.parse(res.data as string));
  }
  if (mode === 'http') return viaHttp(rows, JSON.stringify(envelope));
  const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body: JSON.stringify(envelope) });
  return missing(rows, res.status, await res.json());
}

/** The floor: one node:http request on a keep-alive agent. */
function viaHttp(rows: readonly unknown[], body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${PATH}`, { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(missing(rows, res.statusCode ?? 0, JSON.parse(Buffer.concat(chunks).toString('utf8')))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cpu = process.cpuUsage();
const t = performance.now();
let failed = 0;
let next = 0;
await Promise.all(
  Array.from({ length: lanes }, async () => {
    while (next < batches.length) failed += await send(batches[next++]!);
  }),
);
const ms = performance.now() - t;
const used = process.cpuUsage(cpu);
await client?.close();
agent.destroy();
const cpuMs = (used.user + used.system) / 1000;
process.stdout.write(`${JSON.stringify({ mode, records: n, failed, ms: Math.round(ms), cpuMs: Math.round(cpuMs), usPerRecord: Math.round((cpuMs * 10_000) / n) / 10 })}\n`);
