import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, launchChromium, screenshot } from './browser.js';
import { stateSnapshot } from '../support/untouched.js';
import { startShopsync, XSS_NAME, type Shopsync } from './fixture.js';

const enabled = browserTestsEnabled();

describe.skipIf(!enabled)('dashboard in Chromium, against a real sandbox, state store and pipeline', () => {
  let shopsync: Shopsync;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shopsync = await startShopsync();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    // Only the drop buttons ask for confirmation; any other dialog would be an injected alert().
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await shopsync?.close();
  });

  const card = (name: string) => page.locator(`section.card[data-pipeline="${name}"]`);

  async function runFromOverview(name: string): Promise<number> {
    await page.goto(`${shopsync.url}/`);
    await Promise.all([page.waitForURL(/\/runs\/\d+/), card(name).getByRole('button', { name: 'Run now' }).click()]);
    const runId = Number(/\/runs\/(\d+)/.exec(page.url())?.[1]);
    // The run page follows the run live until it has finished.
    await expect.poll(async () => page.locator('dl.facts .badge').first().textContent(), { timeout: 20_000 }).not.toBe('running');
    return runId;
  }

  it('opens the overview with every pipeline, its schedule and a run button', async () => {
    await page.goto(`${shopsync.url}/`);
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    expect(await card('manufacturers-push').locator('.badge').first().textContent()).toBe('idle');
    expect(await card('products-push').textContent()).toContain('never run');
    expect(await card('products-push').textContent()).toContain('*/5 * * * *');
    await screenshot(page, 'overview-empty');
  });

  it('runs pipelines from the dashboard and shows them finish', async () => {
    const first = await runFromOverview('manufacturers-push');
    expect(await page.locator('dl.facts .badge').first().textContent()).toBe('succeeded');
    expect(await page.locator('#events tr[data-erp-key="ACME"] .badge').textContent()).toBe('created');

    const second = await runFromOverview('products-push');
    expect(second).toBeGreaterThan(first);
    expect(await page.locator('dl.facts .badge').first().textContent()).toBe('partial');
    await page.goto(`${shopsync.url}/`);
    expect(await card('products-push').locator('.badge').first().textContent()).toBe('failing');
    expect(await card('products-push').textContent()).toContain('1 failed');
    expect(await card('manufacturers-push').locator('.badge').first().textContent()).toBe('idle');
    const shot = await screenshot(page, 'overview');
    // The README's picture: refreshed on request only, so test runs do not churn a committed file.
    const docs = join(process.cwd(), 'docs', 'screenshots', 'overview.png');
    if (!existsSync(docs) || process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(join(process.cwd(), 'docs', 'screenshots'), { recursive: true });
      copyFileSync(shot, docs);
    }
  });

  it('opens the run with the failed record and shows its error code and message', async () => {
    await page.goto(`${shopsync.url}/runs`);
    await screenshot(page, 'runs');
    await page.locator('#runs tr', { hasText: 'products-push' }).first().getByRole('link').first().click();
    await page.waitForURL(/\/runs\/\d+$/);
    const row = page.locator('#events tr[data-erp-key="NORD-1"]');
    expect(await row.locator('.badge').textContent()).toBe('dead-lettered');
    expect(await row.locator('.issue.error code.code').textContent()).toBe('MAPPING_LOOKUP');
    expect(await row.locator('.issue.error').textContent()).toContain('no shop id is known for manufacturers with ERP key `NORDWIND`');
    expect(await row.locator('td.label').textContent()).toBe('Nordwind rain jacket');
    await screenshot(page, 'run-detail');
    await page.getByRole('link', { name: 'failed' }).click();
    expect(await page.locator('#events tbody tr').count()).toBe(1);
  });

  it('shows the product named like an HTML tag as text, never as markup', async () => {
    const runId = (await shopsync.state.runs.list({ pipeline: 'products-push', limit: 1 }))[0]!.id;
    await page.goto(`${shopsync.url}/runs/${runId}`);
    expect(await page.locator('#events tr[data-erp-key="XSS-1"] td.label').textContent()).toBe(XSS_NAME);
    await page.goto(`${shopsync.url}/records?q=XSS-1`);
    expect(await page.locator('#history td.label').first().textContent()).toBe(XSS_NAME);
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, 'record-lookup');
    expect(dialogs.filter((d) => !d.startsWith('confirm'))).toEqual([]);
  });

  it('retries a dead letter: it keeps failing until the cause is fixed, then succeeds', async () => {
    await page.goto(`${shopsync.url}/dead-letters`);
    const row = page.locator('#dead-letters tr[data-erp-key="NORD-1"]');
    expect(await row.locator('.reason code.code').textContent()).toBe('MAPPING_LOOKUP');
    expect(await row.locator('td.num').textContent()).toBe('1');
    await screenshot(page, 'dead-letters');

    await Promise.all([page.waitForURL(/flash=/), row.getByRole('button', { name: 'Retry' }).click()]);
    expect(await page.locator('.flash').textContent()).toBe('Retried 1 dead letter: 0 delivered, 1 still failing.');
    expect(await page.locator('#dead-letters tr[data-erp-key="NORD-1"] td.num').textContent()).toBe('2');

    // The fix: the manufacturer appears in the ERP and is pushed to the shop from the dashboard.
    shopsync.erp.prepare('INSERT INTO manufacturers VALUES (?, ?, ?)').run('NORDWIND', 'Nordwind Outdoor', '2026-01-02T00:00:00Z');
    await runFromOverview('manufacturers-push');
    expect(await page.locator('#events tr[data-erp-key="NORDWIND"] .badge').textContent()).toBe('created');

    await page.goto(`${shopsync.url}/dead-letters`);
    await page.locator('#dead-letters tr[data-erp-key="NORD-1"] input[name="id"]').check();
    expect(await page.locator('[data-selected-count]').textContent()).toBe('1');
    await Promise.all([page.waitForURL(/flash=/), page.getByRole('button', { name: /Retry selected/ }).click()]);
    expect(await page.locator('.flash').textContent()).toBe('Retried 1 dead letter: 1 delivered, 0 still failing.');
    expect(await page.locator('#dead-letters').count()).toBe(0);

    const shopId = (await shopsync.state.refs.get('products', 'NORD-1'))?.shopId;
    expect(shopId).toBeDefined();
    const manufacturerId = (await shopsync.state.refs.get('manufacturers', 'NORDWIND'))?.shopId;
    expect(await shopsync.shop.exportOne('products', shopId!)).toMatchObject({ products_model: 'NORD-1', manufacturers_id: manufacturerId });
    await page.goto(`${shopsync.url}/records?q=NORD-1`);
    const outcomes = await page.locator('#history tbody tr .badge').allTextContents();
    expect(outcomes.slice(0, 1)).toEqual(['created']);
    expect(outcomes).toContain('dead-lettered');
  });

  it('follows a run live on an open overview and shows what changed in an update', async () => {
    await page.goto(`${shopsync.url}/`);
    await expect.poll(() => page.locator('#live').textContent()).toBe('live');
    const before = await card('products-push').locator('.facts a[href^="/runs/"]').first().textContent();
    shopsync.erp.prepare('UPDATE articles SET price = ?, updated_at = ? WHERE sku = ?').run('21.50', '2026-01-03T00:00:00Z', 'HAMMER-1');
    // Started outside the browser (as the scheduler would): the open page must notice by itself.
    const run = await fetch(`${shopsync.url}/actions/run`, { method: 'POST' });
    expect(run.status).toBe(403);
    const summary = await shopsync.run('products-push');
    await expect.poll(() => card('products-push').locator('.facts a[href^="/runs/"]').first().textContent(), { timeout: 10_000 }).toBe(`#${summary.runId}`);
    expect(before).not.toBe(`#${summary.runId}`);
    expect(await card('products-push').locator('.badge').first().textContent()).toBe('idle');
    await screenshot(page, 'overview-live');

    await page.goto(`${shopsync.url}/runs/${summary.runId}`);
    const hammer = page.locator('#events tr[data-erp-key="HAMMER-1"]');
    expect(await hammer.locator('.badge').textContent()).toBe('updated');
    expect(await hammer.locator('table.diff tbody tr').allTextContents()).toEqual(['products_price"19.90""21.50"']);
  });

  it('draws the 24-hour charts per pipeline', async () => {
    await page.goto(`${shopsync.url}/charts`);
    expect(await page.locator('section.chart svg').count()).toBe(2);
    expect(await page.locator('section.chart[data-pipeline="products-push"] .counts').textContent()).toMatch(/records 6.*errors 2/);
    await screenshot(page, 'charts');
  });

  it('previews the next records of a pipeline from its card: payload beside source, diff, guard-rail findings, and nothing written', async () => {
    const add = shopsync.erp.prepare('INSERT INTO articles VALUES (?, ?, ?, ?, ?, ?)');
    shopsync.erp.prepare('UPDATE articles SET name = ?, price = ?, updated_at = ? WHERE sku = ?').run('Claw hammer 600 g', '23.90', '2026-01-04T00:00:00Z', 'HAMMER-1');
    add.run('SAW-1', 'Japanese pull saw with a replaceable blade, 240 mm', '34.00', 7, 'ACME', '2026-01-04T00:00:01Z');
    add.run('TAPE-1', 'Tape measure 5 m', '1,5', 'some', 'ACME', '2026-01-04T00:00:02Z');
    add.run('FJORD-1', 'Fjord fleece', '59.00', 4, 'FJORD', '2026-01-04T00:00:03Z');
    const world = async () => {
      const shop: unknown[] = [];
      for await (const p of shopsync.shop.exportAll('products')) shop.push([p.products_model, p.products_price, p.products_quantity]);
      return {
        state: await stateSnapshot(shopsync.state, ['manufacturers-push', 'products-push'], ['manufacturers', 'products']),
        shop,
        erp: shopsync.erp.prepare('SELECT * FROM articles ORDER BY sku').all(),
      };
    };
    const before = await world();

    await page.goto(`${shopsync.url}/`);
    await Promise.all([page.waitForURL(/\/pipelines\/products-push\/preview$/), card('products-push').getByRole('link', { name: 'Preview next records' }).click()]);
    const panel = (key: string) => page.locator(`section.preview-record[data-erp-key="${key}"]`);
    expect(await page.locator('section.preview-record').evaluateAll((els) => els.map((e) => [e.getAttribute('data-erp-key'), e.getAttribute('data-action')]))).toEqual([
      ['HAMMER-1', 'would-update'],
      ['SAW-1', 'would-create'],
      ['TAPE-1', 'refused'],
      ['FJORD-1', 'refused'],
    ]);
    expect(await panel('HAMMER-1').locator('table.diff tbody tr').allTextContents()).toEqual(['products_price21.5"23.90"', 'languages.de.products_name"Claw hammer 500 g""Claw hammer 600 g"']);
    expect(await panel('SAW-1').locator('.issue.warning code.code').allTextContents()).toEqual(['TRUNCATED']);
    expect(await panel('TAPE-1').locator('.issue.error code.code').allTextContents()).toEqual(['GUARD_AMBIGUOUS_DECIMAL', 'MAPPING_DECIMAL']);
    expect(await panel('TAPE-1').locator('.issue.error').first().textContent()).toContain('`1,5` is ambiguous without a declared locale');
    expect(await panel('FJORD-1').locator('.issue.error').textContent()).toContain('no shop id is known for manufacturers with ERP key `FJORD`');
    expect(await panel('FJORD-1').locator('pre').first().textContent()).toContain('"brand": "FJORD"');
    expect(await page.locator('[data-preview-summary] .stat .v').allTextContents()).toEqual(['1', '1', '0', '2', '1']);
    const shot = await screenshot(page, 'preview');
    const docs = join(process.cwd(), 'docs', 'screenshots', 'preview.png');
    if (!existsSync(docs) || process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(shot, docs);

    await page.locator('input[name="limit"]').fill('2');
    await Promise.all([page.waitForURL(/limit=2/), page.getByRole('button', { name: 'Preview again' }).click()]);
    expect(await page.locator('section.preview-record').count()).toBe(2);
    expect(await page.locator('[data-more]').textContent()).toContain('More records follow');
    expect(await world()).toEqual(before);
  });

  it('stays usable in a narrow window', async () => {
    const narrow = await context.newPage();
    await narrow.setViewportSize({ width: 400, height: 800 });
    for (const path of ['/', '/dead-letters', '/charts', '/pipelines/products-push/preview']) {
      await narrow.goto(`${shopsync.url}${path}`);
      expect(await narrow.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(400);
    }
    await narrow.goto(`${shopsync.url}/`);
    await screenshot(narrow, 'overview-narrow');
    await narrow.close();
    expect(pageErrors).toEqual([]);
  });
}, 180_000);
