/**
 * Parts of the remaining-window benchmark (issue 43): a pass-through proxy in front of the shop
 * that notes when each read of the shop's orders ended (the stock run's refresh: an order placed
 * after that answer is not in the run's reservations), and an ERP SQLite file with products and
 * the ERP's booking table the pipeline's `booked.query` reads.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

/** A proxy that forwards every request to the shop and notes the end of each orders read. */
export interface OrdersReadProxy {
  readonly url: string;
  /** Unix ms at which the proxy finished passing on the answer of each `GET …/orders` (in order). */
  readonly ordersReads: number[];
  close(): Promise<void>;
}

/** Start a proxy to `target` (http://host:port). */
export async function ordersReadProxy(target: string): Promise<OrdersReadProxy> {
  const to = new URL(target);
  const ordersReads: number[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => {
        if (req.method === 'GET' && /\/export\/json\/orders/.test(req.url ?? '')) ordersReads.push(Date.now());
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ordersReads,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The stock mapping of the benchmark: `stock: reserved`, as issue 43 ships it. */
export const STOCK_MAPPING = `name: window-stock
direction: erp-to-shop
stock: reserved
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
locale: point
fields:
  products_model: { from: sku, required: true }
  products_price: { from: price, type: decimal }
  products_quantity: { from: qty, type: integer }
  products_status: { value: 1 }
  languages.de.products_name: name
`;

/** `B-0000001` */
export function windowSku(i: number): string {
  return `B-${String(i).padStart(7, '0')}`;
}

/** A stamp as the ERP writes `updated_at` (UTC, seconds). */
export function stampNow(offsetMs = 0): string {
  return new Date(Date.now() + offsetMs).toISOString().slice(0, 19).replace('T', ' ');
}

/** An ERP of `n` products (stock 1,000 each, stamped a day ago) and its booking table. */
export function windowErp(file: string, n: number): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, qty INTEGER NOT NULL, updated_at TEXT NOT NULL);
    CREATE INDEX products_cursor ON products (updated_at, sku);
    CREATE TABLE erp_bookings (orders_id INTEGER PRIMARY KEY, booked_at TEXT NOT NULL);`);
  const insert = db.prepare('INSERT INTO products VALUES (?, ?, ?, ?, ?)');
  const day = stampNow(-86_400_000);
  db.transaction(() => {
    for (let i = 1; i <= n; i++) insert.run(windowSku(i), `Artikel ${i}`, (5 + (i % 200) / 4).toFixed(2), 1000, day);
  })();
  return db;
}
