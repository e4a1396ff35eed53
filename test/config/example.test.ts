import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { resolveMappingPath } from '../../src/ops/runtime.js';
import { loadMapping } from '../../src/mapping/index.js';

const ROOT = join(import.meta.dirname, '../..');

describe('shopsync.example.yaml', () => {
  it('is a valid config once its secrets are in the environment, and every mapping it names compiles', async () => {
    const env = { SHOP_URL: 'https://shop.example.com/api', SHOP_TOKEN: 'example-token', ERP_DB_PASSWORD: 'example-password' };
    const loaded = await loadConfig(join(ROOT, 'shopsync.example.yaml'), { env });
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['categories', 'products', 'stock', 'customers', 'orders-to-erp', 'order-status']);
    expect(loaded.config.connections.erp).toMatchObject({ kind: 'postgres', host: '127.0.0.1', port: 5432, password: 'example-password' });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.secrets).toEqual(expect.arrayContaining(['example-token', 'example-password']));
    for (const p of loaded.config.pipelines) {
      const mapping = await loadMapping(resolveMappingPath(p.mapping, loaded.baseDir));
      expect(mapping.direction, p.name).toBe(p.direction === 'push' ? 'erp-to-shop' : 'shop-to-erp');
    }
  });

  it('finds the shipped mappings it names when copied to a folder without a mappings/ directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-example-'));
    try {
      copyFileSync(join(ROOT, 'shopsync.example.yaml'), join(dir, 'shopsync.yaml'));
      const env = { SHOP_URL: 'https://shop.example.com/api', SHOP_TOKEN: 'example-token', ERP_DB_PASSWORD: 'example-password' };
      const loaded = await loadConfig(join(dir, 'shopsync.yaml'), { env });
      for (const p of loaded.config.pipelines) {
        expect(resolveMappingPath(p.mapping, loaded.baseDir), p.name).toBe(join(ROOT, p.mapping));
      }
      // A mapping the user has neither locally nor among the shipped ones stays where they named it.
      expect(resolveMappingPath('mappings/mine.yaml', dir)).toBe(join(dir, 'mappings/mine.yaml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the missing secret when the environment lacks it', async () => {
    await expect(loadConfig(join(ROOT, 'shopsync.example.yaml'), { env: { SHOP_URL: 'https://shop.example.com/api' } })).rejects.toThrow(/shopsync\.example\.yaml:\d+: shop\.token: .*SHOP_TOKEN/);
  });
});
