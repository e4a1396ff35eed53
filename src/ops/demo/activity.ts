/**
 * Life in the demo: a shop customer places an order now and then, and an ERP clerk works the
 * orders that arrived from the shop (in progress, then shipped with a tracking number) — so the
 * round trip shop → ERP → shop can be watched.
 */
import Database from 'better-sqlite3';
import { formatDateTime } from '../../util/time.js';
import { describeError } from '../../util/describeError.js';
import { ORDER_IMPORT } from './erp.js';

/** Where activity lines go. */
export type Say = (line: string) => void;

/** A running activity loop. */
export interface Activity {
  close(): Promise<void>;
}

/** Repeat `fn` every `ms` (never overlapping) until closed. */
function every(ms: number, fn: () => Promise<void>, onError: (err: unknown) => void): Activity {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    if (stopped) return;
    running = fn()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, ms);
      });
  };
  timer = setTimeout(loop, Math.min(ms, 3000));
  return {
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

interface ApiAnswer {
  success?: boolean;
  data?: Record<string, unknown>[];
  error?: { code?: string; message?: string };
}

async function api(shop: { url: string; token: string }, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const res = await fetch(`${shop.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${shop.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as ApiAnswer;
}

/** A customer who orders something in the shop every `everyMs`. */
export function startShopper(shop: { url: string; token: string }, everyMs: number, say: Say): Activity {
  let n = 0;
  return every(
    everyMs,
    async () => {
      const customers = (await api(shop, 'GET', '/export/json/customers?limit=100')).data ?? [];
      const products = ((await api(shop, 'GET', '/export/json/products?limit=200')).data ?? []).filter((p) => Number(p.products_quantity) >= 3 && Number(p.products_status) === 1);
      if (customers.length === 0 || products.length === 0) return; // The ERP has not filled the shop yet.
      n++;
      const customer = customers[n % customers.length];
      const picks = [products[(n * 7) % products.length], products[(n * 13 + 5) % products.length]].filter((p, i, a) => a.indexOf(p) === i);
      const answer = await api(shop, 'POST', '/import/json/orders', {
        data: [{ customers_id: customer.customers_id, payment_method: 'paypal', shipping_method: 'dhl', products: picks.map((p, i) => ({ products_id: p.products_id, quantity: 1 + ((n + i) % 2) })) }],
      });
      const id = answer.data?.[0]?.orders_id;
      if (answer.success && id !== undefined) {
        const what = picks.map((p) => String(p.products_model)).join(', ');
        say(`shop     a customer (#${String(customer.customers_id)}) placed order ${String(id)}: ${what}`);
      } else {
        say(`shop     placing a demo order failed: ${answer.error?.code ?? 'error'} ${answer.error?.message ?? ''}`);
      }
    },
    (err) => say(`shop     placing a demo order failed: ${describeError(err)}`),
  );
}

/** `YYYY-MM-DD HH:MM:SS` in Berlin, the ERP's clock. */
function erpStamp(d: Date): string {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** `DD.MM.YYYY HH:MM:SS` as the ERP writes dates in its status table. */
function germanStamp(iso: string): string {
  return `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)} ${iso.slice(11)}`;
}

/**
 * The ERP clerk: each shop order imported into `erp_orders` first goes to IN_ARBEIT, and after
 * `shipAfterMs` to VERSANDT with a tracking number, by writing the ERP's status table.
 */
export function startClerk(database: string, everyMs: number, shipAfterMs: number, say: Say): Activity {
  const db = new Database(database);
  db.pragma('busy_timeout = 5000');
  const seen = new Set<number>();
  const started = new Map<number, number>();
  const act = every(
    everyMs,
    async () => {
      const orders = db.prepare(`SELECT "Shop_BestellNr" AS id, "Summe_Brutto" AS total, "RE_Name" AS name FROM ${ORDER_IMPORT.table} WHERE "Quelle" = 'shop' ORDER BY 1`).all() as { id: number; total: string | null; name: string | null }[];
      const statusOf = db.prepare(`SELECT "Status" AS status FROM auftrag_status WHERE "Vorgang" = ?`);
      const latest = db.prepare('SELECT MAX("Geaendert") AS m FROM auftrag_status');
      const upsert = db.prepare(
        `INSERT INTO auftrag_status ("Vorgang", "ShopBestellNr", "Status", "Kommentar", "Kunde_benachrichtigen", "Datum", "Versender", "Sendungsnummer", "Geaendert")
         VALUES (@v, @id, @status, @comment, @notify, @datum, @carrier, @tracking, @changed)
         ON CONFLICT ("Vorgang") DO UPDATE SET "Status" = excluded."Status", "Kommentar" = excluded."Kommentar", "Kunde_benachrichtigen" = excluded."Kunde_benachrichtigen",
           "Datum" = excluded."Datum", "Versender" = excluded."Versender", "Sendungsnummer" = excluded."Sendungsnummer", "Geaendert" = excluded."Geaendert"`,
      );
      for (const o of orders) {
        const v = `WEB-${o.id}`;
        const current = (statusOf.get(v) as { status: string } | undefined)?.status;
        if (!seen.has(o.id) && current === undefined) say(`erp      order ${o.id} arrived in ${ORDER_IMPORT.table} (${o.name ?? '?'}, ${o.total ?? '?'} EUR)`);
        seen.add(o.id);
        if (current === 'VERSANDT' || current === 'STORNIERT') continue;
        const now = Date.now();
        if (current === 'IN_ARBEIT' && now - (started.get(o.id) ?? 0) < shipAfterMs) continue;
        // The status pipeline reads by the Geaendert cursor: a new change must sort after every earlier one.
        const max = (latest.get() as { m: string | null }).m ?? '';
        let changed = erpStamp(new Date(now));
        if (changed <= max) changed = formatDateTime(new Date(Date.parse(`${max.replace(' ', 'T')}Z`) + 1000));
        const ship = current === 'IN_ARBEIT';
        const tracking = ship ? `00340434${String(700000000 + o.id * 7919).padStart(10, '0')}` : '';
        upsert.run({
          v,
          id: String(o.id),
          status: ship ? 'VERSANDT' : 'IN_ARBEIT',
          comment: ship ? 'Ihre Bestellung ist unterwegs.' : 'In Bearbeitung im Lager.',
          notify: ship ? 'J' : 'N',
          datum: germanStamp(changed),
          carrier: ship ? 'DHL' : '',
          tracking,
          changed,
        });
        started.set(o.id, now);
        say(ship ? `erp      order ${o.id} shipped (DHL ${tracking}); status VERSANDT goes back to the shop` : `erp      order ${o.id} is being picked (status IN_ARBEIT); the status goes back to the shop`);
      }
    },
    (err) => say(`erp      the clerk tripped: ${err instanceof Error ? err.message : String(err)}`),
  );
  return {
    async close() {
      await act.close();
      db.close();
    },
  };
}
