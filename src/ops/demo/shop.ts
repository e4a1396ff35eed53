/**
 * What the demo shop holds before shopsync's first run. The shipped product mapping assigns
 * suppliers by their shop id (suppliers are maintained in the shop, not in the ERP), so a fresh,
 * empty sandbox gets the three suppliers the demo ERP's articles name (L-01..L-03 → 1..3).
 */
import { createShopClient } from '../../shop/index.js';
import type { SandboxHandle } from '../../sandbox/index.js';
import { SyncError } from '../../errors.js';

const DEMO_SUPPLIERS = [
  { suppliers_id: 1, suppliers_name: 'Nordlicht Küchenbedarf GmbH', suppliers_city: 'Hamburg', suppliers_country: 'DE' },
  { suppliers_id: 2, suppliers_name: 'Klangwerk Audio Distribution', suppliers_city: 'Köln', suppliers_country: 'DE' },
  { suppliers_id: 3, suppliers_name: 'Alpen Outdoor Handels AG', suppliers_city: 'Innsbruck', suppliers_country: 'AT' },
] as const;

/** Create the demo's suppliers in a freshly created sandbox shop. */
export async function prepareDemoShop(sandbox: SandboxHandle): Promise<void> {
  const client = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token } });
  try {
    const result = await client.create('suppliers', DEMO_SUPPLIERS);
    const failed = result.outcomes.find((o) => !o.ok && o.error?.code !== 'ALREADY_EXISTS');
    if (failed?.error) throw new SyncError('DEMO_SETUP_FAILED', `could not create the demo suppliers in the sandbox: ${failed.error.message}`, { cause: failed.error });
  } finally {
    await client.close();
  }
}
