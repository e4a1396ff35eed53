/**
 * The Shops page and the overview's status filter in Chromium, against the real sandbox, state and
 * pipelines of fixture.ts: `broken-push` reads a table the ERP does not have, so its run fails;
 * `products-push` dead-letters NORD-1, whose brand the ERP does not have yet.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, launchChromium, screenshot } from './browser.js';
import { startShopsync, type Shopsync } from './fixture.js';

const enabled = browserTestsEnabled();

describe.skipIf(!enabled)('the Shops page in Chromium', () => {
  let shopsync: Shopsync;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shopsync = await startShopsync({ extraPipelines: true });
    expect((await shopsync.run('products-push')).status).not.toBe('failed');
    expect((await shopsync.run('broken-push')).status).toBe('failed');
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await shopsync?.close();
  });

  const cards = () => page.locator('section.card').evaluateAll((els) => els.map((e) => e.getAttribute('data-pipeline')));

  it('shows the shop as one row with its failing pipelines, and leads from there to the overview of the failing ones', async () => {
    await page.goto(`${shopsync.url}/`);
    await page.getByRole('link', { name: 'Shops', exact: true }).click();
    await page.waitForURL(/\/shop-health$/);
    const row = page.locator('tr[data-shop-row="default"]');
    expect(await row.getAttribute('data-health')).toBe('unknown');
    expect(await row.locator('td').nth(6).textContent()).toContain('4');
    expect(await page.locator('[data-failing-shops]').textContent()).toBe('1 failing');
    await screenshot(page, 'shops');

    await Promise.all([page.waitForURL(/\/\?shop=default&status=failing$/), row.locator('td').nth(7).getByRole('link').click()]);
    expect(await cards()).toEqual(['products-push', 'broken-push']);
    expect(await page.locator('section.card[data-pipeline="broken-push"] [data-failing]').textContent()).toMatch(/last run #\d+ failed/);
    expect(await page.locator('section.card[data-pipeline="products-push"] [data-failing]').getAttribute('data-failing')).toBe('records-failed dead-letters');

    // The status filter of the overview: back to every pipeline, the failing ones still first.
    await page.locator('select[data-status-filter]').selectOption('');
    await Promise.all([page.waitForURL(/status=$/), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(await cards()).toEqual(['products-push', 'broken-push', 'manufacturers-push', 'orders-pull']);
  });

  it('stays usable in a narrow window', async () => {
    await page.setViewportSize({ width: 400, height: 800 });
    await page.goto(`${shopsync.url}/shop-health`);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(400);
    expect(pageErrors).toEqual([]);
  });
}, 180_000);
