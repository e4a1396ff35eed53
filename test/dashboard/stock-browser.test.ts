/**
 * Issue 43, must-do 5, in Chromium: the record page's stock section of an article whose SKU and
 * order time carry markup shows them as text (no element, no dialog), with its orders and figures.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';
import { browserTestsEnabled, launchChromium, screenshot } from './browser.js';

const XSS = '<img src=x onerror=alert(1)>';

describe.skipIf(!browserTestsEnabled())('the stock section of the record page in Chromium', () => {
  let app: FastifyInstance;
  let state: StateStore;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let url: string;
  const dialogs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('shopsync-dashboard-stock-browser-');
    state = await openState(`${dir}/state.sqlite`);
    const seenAt = new Date(Date.now() - 3_600_000).toISOString();
    await state.reservations.record([
      { shop: 'default', ordersId: 4711, pos: 1, article: 'ART-1004', sku: XSS, quantity: 2, placedAt: XSS, seenAt },
      { shop: 'default', ordersId: 4712, pos: 2, article: 'ART-1004', quantity: 1, placedAt: seenAt.slice(0, 19), seenAt, deliveredAt: seenAt },
    ]);
    await state.stockSent.put([{ pipeline: 'stock', recordKey: 'ART-1004', field: 'products_quantity', erp: '10', reserved: '3', sent: '7', at: seenAt }]);
    app = Fastify();
    await registerDashboard(app, {
      state,
      events: new SyncEvents(),
      pipelines: [{ name: 'stock', resource: 'products', direction: 'push', reservations: { alertAfterMs: 86_400_000 }, nextRun: () => undefined }],
      runNow: async () => {},
      retryDeadLetters: async () => {},
      dropDeadLetters: async () => {},
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = listeningUrl(app.server);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await state?.close();
    removeDir(dir);
  });

  it('shows the ERP figure, the unbooked orders and what was sent, markup as text', async () => {
    await page.goto(`${url}/records?q=ART-1004`);
    const section = page.locator('section.stock[data-pipeline="stock"]');
    expect(await section.locator('[data-erp-figure]').textContent()).toBe('10');
    expect(await section.locator('[data-units]').textContent()).toBe('3');
    expect(await section.locator('[data-may-show]').textContent()).toBe('7');
    expect(await section.locator('table.unbooked tbody tr').count()).toBe(2);
    const first = section.locator('tr[data-order="4711"] td');
    expect(await first.nth(3).textContent()).toBe(XSS);
    expect(await first.nth(6).textContent()).toBe(XSS);
    expect(await section.locator('tr[data-order="4712"] td').nth(8).textContent()).not.toContain('not yet');
    expect(await section.locator('tr[data-field="products_quantity"] [data-sent]').textContent()).toBe('7');
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, 'record-stock');
    expect(dialogs).toEqual([]);
  });
});
