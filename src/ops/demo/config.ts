/**
 * The demo's `shopsync.yaml`: the sandbox as the shop, the demo ERP's database and CSV inbox as
 * connections, and the shipped mappings as pipelines on a short schedule. Written to
 * `state/demo/shopsync.yaml` so a user can read it, copy it and run `shopsync --config` with it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { demoSources } from '../../demo/index.js';
import { INBOX_TABLES, ORDER_IMPORT, VARIANT_IMPORT } from './erp.js';

/** Options of `demoConfig`. */
export interface DemoConfigOptions {
  /** Folder of the shipped mappings. */
  readonly mappingsDir: string;
  /** Seconds between scheduled runs. */
  readonly intervalSec: number;
  readonly dashboardPort: number;
}

/** Pipelines in the order of their first run: references first (categories before products), stock after the ERP's own orders (the ERP's stock already accounts for them; the shop books stock when an order is created). */
export const DEMO_ORDER = ['categories', 'manufacturers', 'products', 'variants', 'variants-to-erp', 'customers', 'contracts', 'orders-from-erp', 'stock', 'orders-to-erp', 'order-status'] as const;

/** The demo config as YAML text (shop URL and token come from SANDBOX_URL and SANDBOX_TOKEN). */
export function demoConfig(o: DemoConfigOptions): string {
  const every = `*/${o.intervalSec} * * * * *`;
  const pipelines: Record<string, unknown>[] = [];
  const inboxSource: Record<string, { pattern: string; key: string }> = {
    categories: { pattern: `${INBOX_TABLES[0]}*.csv`, key: 'WGR' },
    manufacturers: { pattern: `${INBOX_TABLES[1]}*.csv`, key: 'HerstellerNr' },
  };
  for (const s of demoSources()) {
    const mapping = join(o.mappingsDir, `${s.mapping}.yaml`);
    if (!existsSync(mapping)) continue;
    const resource = s.mapping === 'stock' || s.mapping === 'variants' ? 'products' : s.mapping === 'orders-from-erp' || s.mapping === 'order-status' ? 'orders' : s.mapping;
    const fromInbox = inboxSource[s.mapping];
    pipelines.push({
      name: s.mapping,
      direction: 'push',
      resource,
      mapping,
      source: fromInbox
        ? { connection: 'inbox', folder: 'inbox', format: 'csv', pattern: fromInbox.pattern, encoding: 'windows-1252', key: fromInbox.key, csv: { delimiter: ';' } }
        : { connection: 'erp', query: s.query, cursor: s.cursor, key: s.key, ...(s.children.length ? { children: s.children.map((c) => ({ ...c })) } : {}) },
      schedule: every,
      // The catalog's life: articles that leave the ERP are deactivated (after a complete read, nightly),
      // and a weekly reconciliation compares the ERP with the shop (docs/catalog.md).
      ...(s.mapping === 'products'
        ? { options: { onMissing: 'deactivate' }, completeSchedule: '0 2 * * *', reconcile: { schedule: '0 3 * * 0', alertAbove: 10 } }
        : {}),
    });
  }
  const variantsToErp = join(o.mappingsDir, 'variants-to-erp.yaml');
  if (existsSync(variantsToErp)) {
    pipelines.push({
      name: 'variants-to-erp',
      direction: 'pull',
      resource: 'products',
      mapping: variantsToErp,
      sink: {
        connection: 'erp',
        table: VARIANT_IMPORT.table,
        key: VARIANT_IMPORT.key,
        children: [{ field: VARIANT_IMPORT.rowsField, table: VARIANT_IMPORT.rows, key: [...VARIANT_IMPORT.rowKey], parentKey: VARIANT_IMPORT.key }],
      },
      schedule: every,
    });
  }
  const ordersToErp = join(o.mappingsDir, 'orders-to-erp.yaml');
  if (existsSync(ordersToErp)) {
    pipelines.push({
      name: 'orders-to-erp',
      direction: 'pull',
      resource: 'orders',
      mapping: ordersToErp,
      sink: {
        connection: 'erp',
        table: ORDER_IMPORT.table,
        key: ORDER_IMPORT.key,
        children: [
          { field: ORDER_IMPORT.linesField, table: ORDER_IMPORT.lines, key: [...ORDER_IMPORT.lineKey], parentKey: ORDER_IMPORT.key },
          { field: ORDER_IMPORT.changesField, table: ORDER_IMPORT.changes, key: [...ORDER_IMPORT.changeKey], parentKey: ORDER_IMPORT.key, append: true },
        ],
      },
      // The sandbox writes its dates in UTC: an exact ceiling for the delta cursor.
      options: { shopTimeZone: 'UTC' },
      // Cancellations, returns and tracking after checkout reach erp_order_changes (sandbox statuses: 4 cancelled, 5 returned).
      follow: { every: '1h', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 },
      schedule: every,
    });
  }
  pipelines.sort((a, b) => DEMO_ORDER.indexOf(a.name as never) - DEMO_ORDER.indexOf(b.name as never));
  const config = {
    shop: {
      baseUrl: '${SANDBOX_URL}',
      token: '${SANDBOX_TOKEN}',
      rateLimit: { requests: 50, intervalMs: 1000 },
      batchSize: 50,
    },
    connections: {
      erp: { kind: 'sqlite', path: 'erp.sqlite' },
      inbox: { kind: 'files', folder: '.' },
    },
    pipelines,
    timezone: 'Europe/Berlin',
    state: { path: 'shopsync.db' },
    dashboard: { host: '127.0.0.1', port: o.dashboardPort },
    daemon: { shutdownGraceMs: 10_000 },
  };
  return `# yaml-language-server: $schema=${pathToFileURL(join(o.mappingsDir, '..', 'schemas', 'shopsync.schema.json')).href}
# Written by \`shopsync demo\`: the sandbox shop, the demo ERP (erp.sqlite + inbox/) and the shipped
# mappings on a ${o.intervalSec}-second schedule. Run it yourself with:
#   SANDBOX_URL=http://127.0.0.1:<port> SANDBOX_TOKEN=sandbox-token shopsync run --config ${join('state', 'demo', 'shopsync.yaml')}
${stringify(config, { lineWidth: 0 })}`;
}
