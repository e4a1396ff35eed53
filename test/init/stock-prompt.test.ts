/**
 * The stock prompt itself (src/init/prompts.ts), answered on a stream as on a terminal: Enter takes
 * "on hand" (reserved), the first choice; one step down takes "already available".
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askStock } from '../../src/init/prompts.js';

async function answer(keys: readonly string[]): Promise<{ choice: string; shown: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => (shown += c.toString()));
  const asked = askStock({ fields: [{ target: 'products_quantity', column: 'bestand' }], ordersPull: true }, { input, output });
  for (const k of keys) {
    await new Promise((r) => setTimeout(r, 20));
    input.write(k);
  }
  return { choice: await asked, shown };
}

describe('the stock prompt', () => {
  it('names the column and the field, and takes on hand (reserved) on Enter', async () => {
    const r = await answer(['\r']);
    expect(r.choice).toBe('reserved');
    expect(r.shown).toContain('Stock (bestand → products_quantity)');
    expect(r.shown).toContain('imported_at');
  });

  it('takes already available one step down', async () => {
    expect((await answer(['\u001b[B', '\r'])).choice).toBe('available');
  });
});
