/**
 * The agency deployment of `npm run bench -- agency`: fifty sandbox shops in three processes, one
 * PostgreSQL ERP (articles, per-shop prices, stock, manufacturers), a config written the agency way
 * (one template per pipeline, one file per shop in shops.d/), and a writer committing steady changes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TrafficView } from '../../../src/sandbox/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** One shop of the agency. */
export interface AgencyShop {
  readonly name: string;
  readonly url: string;
  readonly token: string;
  /** Its hidden limit (requests per second) and the config's rate limit. */
  readonly limit: number;
  readonly latencyMs: number;
  readonly offsetSeconds: number;
}

/** Sandbox processes holding the shops. */
export interface ShopFleet {
  readonly shops: readonly AgencyShop[];
  faults(shop: AgencyShop, settings: Readonly<Record<string, number>>): Promise<void>;
  traffic(shop: AgencyShop): Promise<TrafficView>;
  close(): Promise<void>;
}

/** Start `count` shops over `processes` sandbox processes, limits spread from 5 to 40 requests/s and latencies from 20 to 120 ms. */
export async function startFleet(count: number, processes: number): Promise<ShopFleet> {
  const children: ChildProcess[] = [];
  const found: { index: number; url: string; token: string }[] = [];
  const per = Math.ceil(count / processes);
  await Promise.all(
    Array.from({ length: processes }, async (_, p) => {
      const first = p * per;
      const n = Math.min(per, count - first);
      if (n <= 0) return;
      const child = spawn(process.execPath, [join(here, 'shops-child.js'), String(n), String(first)], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.once('exit', (code) => reject(new Error(`a sandbox process exited with ${code} before it was ready`)));
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          for (const m of out.matchAll(/READY (\d+) (\S+) (\S+)\n/g)) if (!found.some((f) => f.index === Number(m[1]))) found.push({ index: Number(m[1]), url: m[2]!, token: m[3]! });
          if (found.filter((f) => f.index >= first && f.index < first + n).length === n) resolve();
        });
      });
    }),
  );
  const shops = found
    .sort((a, b) => a.index - b.index)
    .map((f) => ({
      name: `s${String(f.index + 1).padStart(2, '0')}`,
      url: f.url,
      token: f.token,
      limit: 5 + Math.round((35 * f.index) / Math.max(1, count - 1)),
      latencyMs: 20 + ((f.index * 37) % 101),
      // Ten start slots three seconds apart, five shops each: spread over the half minute, and shops of one slot may share a read.
      offsetSeconds: (f.index % 10) * 3,
    }));
  const control = async (shop: AgencyShop, method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await fetch(`${shop.url}${path}`, { method, headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path} on ${shop.name} failed: ${res.status} ${await res.text()}`);
    return res;
  };
  for (const shop of shops) await control(shop, 'PUT', '/sandbox/faults', { latency_ms: shop.latencyMs, rate_limit_per_second: shop.limit });
  return {
    shops,
    async faults(shop, settings) {
      await control(shop, 'PUT', '/sandbox/faults', settings);
    },
    async traffic(shop) {
      return (await (await control(shop, 'GET', '/sandbox/traffic')).json()) as TrafficView;
    },
    async close() {
      for (const c of children) c.stdin!.end();
      await Promise.all(children.map((c) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())))));
    },
  };
}

/** The ERP: `products` articles (all stamped in 2020, before the pipelines' initial cursor), a price per shop and article, stock, 200 manufacturers. */
export async function createErp(url: string, schema: string, products: number, shops: readonly AgencyShop[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const s = pg.escapeIdentifier(schema);
    await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s}`);
    await c.query(`SET search_path = ${s}`);
    await c.query(`CREATE TABLE artikel (artnr text PRIMARY KEY, name text NOT NULL, geaendert timestamptz NOT NULL);
      CREATE INDEX artikel_cursor ON artikel (geaendert, artnr);
      CREATE TABLE preise (shop text NOT NULL, artnr text NOT NULL, preis numeric(10,2) NOT NULL, geaendert timestamptz NOT NULL, PRIMARY KEY (shop, artnr));
      CREATE INDEX preise_cursor ON preise (shop, geaendert, artnr);
      CREATE TABLE lager (artnr text PRIMARY KEY, bestand integer NOT NULL, geaendert timestamptz NOT NULL);
      CREATE INDEX lager_cursor ON lager (geaendert, artnr);
      CREATE TABLE hersteller (nr text PRIMARY KEY, name text NOT NULL, geaendert timestamptz NOT NULL);
      CREATE INDEX hersteller_cursor ON hersteller (geaendert, nr);`);
    await c.query(`INSERT INTO artikel SELECT 'A' || lpad(i::text, 6, '0'), 'Artikel ' || i, '2020-01-01Z' FROM generate_series(1, $1) i`, [products]);
    await c.query(`INSERT INTO lager SELECT 'A' || lpad(i::text, 6, '0'), i % 100, '2020-01-01Z' FROM generate_series(1, $1) i`, [products]);
    await c.query(
      `INSERT INTO preise SELECT s.shop, 'A' || lpad(i::text, 6, '0'), round((5 + (i % 200) / 4.0) * s.factor, 2), '2020-01-01Z'
       FROM generate_series(1, $1) i CROSS JOIN unnest($2::text[], $3::numeric[]) AS s(shop, factor)`,
      [products, shops.map((x) => x.name), shops.map((_, i) => 1 + (i % 10) / 20)],
    );
    await c.query(`INSERT INTO hersteller SELECT 'H' || lpad(i::text, 3, '0'), 'Hersteller ' || i, '2020-01-01Z' FROM generate_series(1, 200) i`);
    await c.query('ANALYZE artikel; ANALYZE preise; ANALYZE lager; ANALYZE hersteller');
  } finally {
    await c.end();
  }
}

/** Write the agency config: shopsync.yaml with four templates, shops.d/<shop>.yaml per shop, the mappings. */
export function writeAgencyConfig(dir: string, o: { pgUrl: string; erpSchema: string; stateSchema: string; shops: readonly AgencyShop[]; alertUrl: string; initialCursor: string }): string {
  mkdirSync(join(dir, 'shops.d'), { recursive: true });
  mkdirSync(join(dir, 'mappings'), { recursive: true });
  const source = (query: string, key = 'artnr', perShop = false) =>
    `{ connection: erp, query: "${query.replace('$SINCE', `'${o.initialCursor}'`)}", cursor: geaendert, key: ${key}, pageSize: 1000${perShop ? ', params: { shop: "${shop.code}" }' : ''} }`;
  writeFileSync(
    join(dir, 'shopsync.yaml'),
    `# The agency benchmark: ${o.shops.length} shops, four templates, every pipeline once per shop.
connections:
  erp: { kind: postgres, url: "${o.pgUrl}", schema: ${o.erpSchema} }
state: { kind: postgres, url: "${o.pgUrl}", schema: ${o.stateSchema} }
dashboard: { port: 0 }
alerts:
  webhook: { url: "${o.alertUrl}", retries: 0 }
  maxPerHour: 1000
templates:
  products:
    direction: push
    resource: products
    mapping: mappings/products.yaml
    schedule: "0,30 * * * * *"
    options: { storePayloads: false }
    source: ${source('SELECT a.artnr, a.name, p.preis, a.geaendert FROM artikel a JOIN preise p ON p.artnr = a.artnr AND p.shop = :shop WHERE a.geaendert >= $SINCE', 'artnr', true)}
  prices:
    direction: push
    resource: products
    mapping: mappings/prices.yaml
    schedule: "0,30 * * * * *"
    options: { storePayloads: false }
    source: ${source('SELECT artnr, preis, geaendert FROM preise WHERE shop = :shop AND geaendert >= $SINCE', 'artnr', true)}
  stock:
    direction: push
    resource: products
    mapping: mappings/stock.yaml
    schedule: "0,30 * * * * *"
    options: { storePayloads: false }
    source: ${source('SELECT artnr, bestand, geaendert FROM lager WHERE geaendert >= $SINCE')}
  manufacturers:
    direction: push
    resource: manufacturers
    mapping: mappings/manufacturers.yaml
    schedule: "0,30 * * * * *"
    options: { storePayloads: false }
    source: ${source('SELECT nr, name, geaendert FROM hersteller WHERE geaendert >= $SINCE', 'nr')}
`,
  );
  for (const shop of o.shops) {
    writeFileSync(
      join(dir, 'shops.d', `${shop.name}.yaml`),
      `baseUrl: ${shop.url}
token: \${SHOP_${shop.name.toUpperCase()}_TOKEN}
rateLimit: { mode: fixed, requests: ${shop.limit} }
scheduleOffsetSeconds: ${shop.offsetSeconds}
vars: { code: ${shop.name} }
`,
    );
  }
  writeFileSync(
    join(dir, 'mappings', 'products.yaml'),
    `name: agency-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: artnr
shop_key: products_model
fields:
  products_model: { from: artnr, required: true }
  products_price: { from: preis, type: decimal, locale: point, required: true }
  products_status: { value: 1 }
  languages.de.products_name: { from: name, required: true }
`,
  );
  // Prices and stock update one field of a product the products pipeline created.
  for (const [name, field, column] of [['prices', 'products_price', 'preis'], ['stock', 'products_quantity', 'bestand']] as const) {
    writeFileSync(
      join(dir, 'mappings', `${name}.yaml`),
      `name: agency-${name}
direction: erp-to-shop
target: { resource: products, operation: update }
key: artnr
shop_key: products_model
fields:
  products_model: { from: artnr, required: true }
  ${field}: { from: ${column}, type: decimal, locale: point, required: true }
`,
    );
  }
  writeFileSync(
    join(dir, 'mappings', 'manufacturers.yaml'),
    `name: agency-manufacturers
direction: erp-to-shop
target: { resource: manufacturers, operation: upsert }
key: nr
fields:
  manufacturers_name: { from: name, required: true }
`,
  );
  return join(dir, 'shopsync.yaml');
}

/** The environment the replicas read the shops' tokens from. */
export function tokenEnv(shops: readonly AgencyShop[]): Record<string, string> {
  return Object.fromEntries(shops.map((s) => [`SHOP_${s.name.toUpperCase()}_TOKEN`, s.token]));
}
