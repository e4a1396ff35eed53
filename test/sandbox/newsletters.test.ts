/**
 * Newsletter campaigns in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | composite key newsletters_id + language; multi-language create; single export returns all versions | l.141, l.440-441 |
 * | export filters status (0/1) and language_id | l.444 |
 * | a locked version cannot be updated: LOCKED (409 when the request fails as a whole) | l.341, l.694 |
 * | delete of a locked campaign: 409 LOCKED; with sent entries: 409 HAS_SENT_ENTRIES | l.341, l.694-695 |
 * | POST with a used id: Already exists; PUT of an unknown id: Not found (wire convention) | contracts.md |
 */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/shop/errors.js';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

describe('campaigns', () => {
  it('creates a multi-language campaign and exports every language version', async () => {
    const { outcomes } = await fx().client.create('newsletters', [
      { languages: { de: { title: 'Winter', content: '<p>Hallo</p>', module: 'standard' }, en: { title: 'Winter', content: '<p>Hello</p>', module: 'standard' } } },
    ]);
    const id = outcomes[0].data?.newsletters_id as number;
    const campaign = await fx().client.exportOne('newsletters', id);
    const languages = campaign?.languages as Record<string, Record<string, unknown>>;
    expect(Object.keys(languages).sort()).toEqual(['de', 'en']);
    expect(languages.de).toMatchObject({ language_id: 2, title: 'Winter', content: '<p>Hallo</p>', status: 0, locked: 0, date_sent: null });
    expect(languages.en).toMatchObject({ language_id: 1, content: '<p>Hello</p>' });
  });

  it('writes one language version without touching the others (composite key)', async () => {
    await fx().client.update('newsletters', [{ newsletters_id: 3, languages: { en: { title: 'Autumn draft', content: '<p>EN</p>' } } }]);
    await fx().client.update('newsletters', [{ newsletters_id: 3, languages: { de: { status: 1 } } }]);
    const languages = (await fx().client.exportOne('newsletters', 3))?.languages as Record<string, Record<string, unknown>>;
    expect(languages.de).toMatchObject({ title: 'Herbst-Entwurf', status: 1 });
    expect(languages.en).toMatchObject({ title: 'Autumn draft', status: 0, language_id: 1 });
  });

  it('refuses to update a locked version with LOCKED, while an unlocked version of it may change', async () => {
    const { outcomes } = await fx().client.update('newsletters', [
      { newsletters_id: 2, languages: { de: { title: 'Neu' } } },
      { newsletters_id: 2, languages: { en: { title: 'Summer party (updated)' } } },
    ]);
    expect(outcomes[0].error?.apiCode).toBe('LOCKED');
    expect(outcomes[1].ok).toBe(true);
    const languages = (await fx().client.exportOne('newsletters', 2))?.languages as Record<string, Record<string, unknown>>;
    expect(languages.de.title).toBe('Sommerfest-Einladung');
    expect(languages.en.title).toBe('Summer party (updated)');
  });

  it('answers 409 LOCKED to an update whose every record touches a locked version, and the client raises a ConflictError', async () => {
    const res = await fx().http.put('/import/json/newsletters', { type: 'newsletters', data: [{ newsletters_id: 2, languages: { de: { title: 'Neu' } } }] });
    expect(res.status).toBe(409);
    expect(res.data).toMatchObject({ success: false, error: { code: 'LOCKED', details: { index: 0, newsletters_id: 2 } } });
    const { outcomes } = await fx().client.update('newsletters', [{ newsletters_id: 2, languages: { de: { title: 'Neu' } } }]);
    expect(outcomes[0].error).toBeInstanceOf(ConflictError);
    expect(outcomes[0].error).toMatchObject({ status: 409, code: 'LOCKED' });
  });

  it('locks and unlocks a campaign version through PUT /sandbox/locks, so a test can produce LOCKED', async () => {
    const lock = await fx().http.put('/sandbox/locks', { resource: 'newsletters', newsletters_id: 3, language: 'de', locked: true });
    expect(lock.data).toMatchObject({ success: true, locked: { de: 1 } });
    const refused = await fx().client.update('newsletters', [{ newsletters_id: 3, languages: { de: { title: 'x' } } }]);
    expect(refused.outcomes[0].error).toMatchObject({ status: 409, code: 'LOCKED' });
    expect((await fx().http.delete('/delete/json/newsletter/3')).status).toBe(409);
    await fx().http.put('/sandbox/locks', { resource: 'newsletters', newsletters_id: 3, locked: false });
    expect((await fx().client.update('newsletters', [{ newsletters_id: 3, languages: { de: { title: 'x' } } }])).outcomes[0].ok).toBe(true);
    expect((await fx().http.put('/sandbox/locks', { resource: 'newsletters', newsletters_id: 3, language: 'fr', locked: true })).status).toBe(404);
    expect((await fx().http.put('/sandbox/locks', { resource: 'newsletters', newsletters_id: 3 })).status).toBe(400);
  });

  it('answers 409 LOCKED and 409 HAS_SENT_ENTRIES on delete, the client raises a ConflictError for each, and deletes a plain draft', async () => {
    const locked = await fx().http.delete('/delete/json/newsletter/2');
    expect([locked.status, locked.data.error.code]).toEqual([409, 'LOCKED']);
    const sent = await fx().http.delete('/delete/json/newsletter/1');
    expect([sent.status, sent.data.error.code]).toEqual([409, 'HAS_SENT_ENTRIES']);
    await expect(fx().client.delete('newsletters', 1)).rejects.toBeInstanceOf(ConflictError);
    await expect(fx().client.delete('newsletters', 1)).rejects.toMatchObject({ status: 409, code: 'HAS_SENT_ENTRIES', apiCode: 'HAS_SENT_ENTRIES' });
    await expect(fx().client.delete('newsletters', 2)).rejects.toBeInstanceOf(ConflictError);
    await expect(fx().client.delete('newsletters', 2)).rejects.toMatchObject({ status: 409, code: 'LOCKED', apiCode: 'LOCKED' });
    expect(await fx().client.delete('newsletters', 3)).toMatchObject({ success: true, deleted: [3] });
    expect(await fx().client.exportOne('newsletters', 3)).toBeUndefined();
    expect(await fx().client.exportOne('newsletters', 2)).toBeDefined();
  });

  it('filters by status and language_id', async () => {
    const drafts = await collect(fx().client.exportAll('newsletters', { filters: { status: 0 } }));
    expect(drafts.map((c) => c.newsletters_id)).toEqual([3]);
    const english = await collect(fx().client.exportAll('newsletters', { filters: { language_id: 1 } }));
    expect(english.map((c) => c.newsletters_id)).toEqual([1, 2]);
    expect(english.every((c) => Object.keys(c.languages as object).join() === 'en')).toBe(true);
  });

  it('answers Already exists for a used id and Not found for an unknown one', async () => {
    const created = await fx().client.create('newsletters', [{ newsletters_id: 1, languages: { de: { title: 'x' } } }, { languages: { de: { content: 'no title' } } }]);
    expect(created.outcomes[0].error?.apiCode).toBe('Already exists');
    expect(created.outcomes[1].error?.details?.field).toBe('languages.de.title');
    const updated = await fx().client.update('newsletters', [{ newsletters_id: 50, languages: { de: { title: 'x' } } }]);
    expect(updated.outcomes[0].error?.apiCode).toBe('Not found');
  });
});
