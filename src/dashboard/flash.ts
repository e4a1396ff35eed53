/**
 * One-shot messages shown after an action ("Retried 3 dead letters: 2 delivered, 1 still failing").
 * Kept server-side under a random id so a crafted link cannot make the dashboard display text of
 * someone else's choosing.
 */
import { randomBytes } from 'node:crypto';
import { html, type SafeHtml } from './html.js';

/** A flash message's tone. */
export type FlashTone = 'ok' | 'bad';

const TTL_MS = 5 * 60_000;
const MAX = 200;

/** An in-memory flash store. */
export class FlashStore {
  private readonly entries = new Map<string, { tone: FlashTone; text: string; at: number }>();

  /** Keep a message and return its id for the redirect URL. */
  put(tone: FlashTone, text: string): string {
    const now = Date.now();
    for (const [k, v] of this.entries) if (now - v.at > TTL_MS || this.entries.size >= MAX) this.entries.delete(k);
    const id = randomBytes(9).toString('base64url');
    this.entries.set(id, { tone, text, at: now });
    return id;
  }

  /** The message for an id, rendered; it stays readable until it expires so live re-renders keep it. */
  render(id: string | undefined): SafeHtml | undefined {
    const e = id ? this.entries.get(id) : undefined;
    if (!e || Date.now() - e.at > TTL_MS) return undefined;
    return html`<div class="flash ${e.tone}" role="status">${e.text}</div>`;
  }
}

/** Append `flash=<id>` to a local path. */
export function withFlash(path: string, id: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}flash=${encodeURIComponent(id)}`;
}
