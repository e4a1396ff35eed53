/** Demo newsletter data: confirmed and unconfirmed subscribers, a sent campaign, a locked one and a draft. */
import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../handler.js';
import { formatDateTime } from '../dates.js';

function daysAgo(ctx: SandboxContext, days: number): string {
  return formatDateTime(new Date(ctx.now().getTime() - days * 86_400_000));
}

/** Subscribers. */
export function seedSubscribers(ctx: SandboxContext): void {
  const rows: [string, string, string, number, 'confirmed' | 'unconfirmed', number][] = [
    ['jana.becker@example.org', 'Jana', 'Becker', 2, 'confirmed', 40],
    ['m.wolf@example.com', 'Markus', 'Wolf', 2, 'confirmed', 20],
    ['sam.taylor@example.net', 'Sam', 'Taylor', 1, 'unconfirmed', 3],
    ['lea.schmidt@example.de', 'Lea', 'Schmidt', 2, 'unconfirmed', 1],
  ];
  rows.forEach(([email, first, last, languageId, status, days], i) => {
    ctx.store.put('newsletter_subscribers', i + 1, {
      subscribe_id: i + 1,
      subscribe_email: email,
      subscribe_firstname: first,
      subscribe_lastname: last,
      subscribe_language_id: languageId,
      customers_id: 0,
      subscribe_status: status,
      subscribe_status_key: randomBytes(16).toString('hex'),
      subscribe_date_added: daysAgo(ctx, days),
      subscribe_last_modified: daysAgo(ctx, days),
    });
  });
}

/** Campaigns. */
export function seedCampaigns(ctx: SandboxContext): void {
  const version = (languageId: number, title: string, status: 0 | 1, locked: 0 | 1, added: number, sent: number | null) => ({
    language_id: languageId,
    title,
    content: `<h1>${title}</h1><p>News from the demo shop.</p>`,
    module: 'standard',
    status,
    locked,
    date_added: daysAgo(ctx, added),
    date_sent: sent === null ? null : daysAgo(ctx, sent),
  });
  ctx.store.put('newsletters', 1, {
    newsletters_id: 1,
    languages: { de: version(2, 'Frühjahrs-Angebote', 1, 0, 60, 55), en: version(1, 'Spring offers', 1, 0, 60, 55) },
    sent_entries: 412,
  });
  ctx.store.put('newsletters', 2, {
    newsletters_id: 2,
    languages: { de: version(2, 'Sommerfest-Einladung', 1, 1, 5, null), en: version(1, 'Summer party invitation', 1, 0, 5, null) },
    sent_entries: 0,
  });
  ctx.store.put('newsletters', 3, { newsletters_id: 3, languages: { de: version(2, 'Herbst-Entwurf', 0, 0, 1, null) }, sent_entries: 0 });
}
