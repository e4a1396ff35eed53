/**
 * Sandbox throughput: 20,000 products pushed in batches of 100 (POST), then updated with stock
 * per warehouse in batches of 50 (PUT), then exported page by page, all over HTTP through the client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { createShopClient } from '../../src/shop/index.js';

const PRODUCTS = 20_000;

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-sandbox-bench-'));
  const sandbox = await startSandbox({ dbPath: join(dir, 'sandbox.sqlite'), seed: 'empty' });
  const client = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, rateLimit: { concurrency: 4, intervalCap: 100_000, intervalMs: 1000 } });
  const lines: string[] = [];
  try {
    const records = Array.from({ length: PRODUCTS }, (_, i) => ({
      products_model: `B-${i}`,
      products_price: 10 + (i % 100),
      products_quantity: i % 50,
      languages: { de: { products_name: `Artikel ${i}`, products_description: `<p>Beschreibung ${i}</p>` } },
      groups: [{ customers_group_id: 3, customers_group_price: 8 + (i % 100) }],
    }));
    let t = performance.now();
    const created = await client.create('products', records, { batchSize: 100 });
    let ms = performance.now() - t;
    const failed = created.outcomes.filter((o) => !o.ok).length;
    lines.push(`sandbox: POST ${PRODUCTS} products in batches of 100: ${ms.toFixed(0)} ms (${((PRODUCTS / ms) * 1000).toFixed(0)} products/s, ${created.requests} requests, ${failed} failed)`);

    const updates = records.map((r, i) => ({ products_model: r.products_model, products_quantity: (i % 50) + 1, storages: [{ storages_id: 1, products_quantity: i % 7, products_safe_quantity: 1 }] }));
    t = performance.now();
    const updated = await client.update('products', updates, { batchSize: 50 });
    ms = performance.now() - t;
    lines.push(`sandbox: PUT ${PRODUCTS} stock updates in batches of 50: ${ms.toFixed(0)} ms (${((PRODUCTS / ms) * 1000).toFixed(0)} products/s, ${updated.outcomes.filter((o) => !o.ok).length} failed)`);

    t = performance.now();
    let count = 0;
    for await (const _ of client.exportAll('products', { pageSize: 250 })) count += 1;
    ms = performance.now() - t;
    lines.push(`sandbox: export ${count} products in pages of 250: ${ms.toFixed(0)} ms (${((count / ms) * 1000).toFixed(0)} products/s)`);
  } finally {
    await client.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
