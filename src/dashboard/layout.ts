/** The page frame shared by every dashboard page: head, navigation, live indicator. */
import { html, type SafeHtml } from './html.js';

/** Navigation entries, in menu order. */
const NAV: readonly { href: string; label: string; key: string }[] = [
  { href: '/', label: 'Overview', key: 'overview' },
  { href: '/shop-health', label: 'Shops', key: 'shops' },
  { href: '/runs', label: 'Runs', key: 'runs' },
  { href: '/dead-letters', label: 'Dead letters', key: 'dead-letters' },
  { href: '/conflicts', label: 'Conflicts', key: 'conflicts' },
  { href: '/records', label: 'Records', key: 'records' },
  { href: '/reconcile', label: 'Reconcile', key: 'reconcile' },
  { href: '/charts', label: 'Charts', key: 'charts' },
];

/** What a page hands to the frame. */
export interface PageOptions {
  readonly title: string;
  readonly nav?: string;
  readonly body: SafeHtml;
  /** Whether the page follows live progress (re-rendered on sync events). @default true */
  readonly live?: boolean;
  /** Whether a run is in progress (enables polling when server-sent events are unavailable). */
  readonly running?: boolean;
  readonly csrfToken: string;
  /** A token-protected dashboard shows a sign-out button. */
  readonly signOut?: boolean;
}

/** Render a complete page. */
export function page(options: PageOptions): string {
  const live = options.live ?? true;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${options.csrfToken}">
<meta name="referrer" content="same-origin">
<title>${options.title} · shopsync</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
<a class="brand" href="/">shopsync</a>
<nav aria-label="Main">${NAV.map((n) => html`<a href="${n.href}"${n.key === options.nav ? html` aria-current="page"` : ''}>${n.label}</a>`)}</nav>
${live ? html`<span class="live" id="live" aria-live="polite">connecting</span>` : ''}
${options.signOut ? html`<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${options.csrfToken}"><button class="secondary" type="submit">Sign out</button></form>` : ''}
</header>
<main id="main"${live ? html` data-live` : ''} data-running="${options.running ? '1' : '0'}">
${options.body}
</main>
<script src="/assets/dashboard.js" defer></script>
</body>
</html>`.value;
}

/** A standalone message page (refusals, not found). */
export function messagePage(title: string, message: string, csrfToken: string): string {
  return page({ title, live: false, csrfToken, body: html`<h1>${title}</h1><p>${message}</p><p><a href="/">Back to the overview</a></p>` });
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A coloured badge for a run status, pipeline state or record outcome. */
export function badge(value: string): SafeHtml {
  const tone: Record<string, string> = {
    succeeded: 'ok', ok: 'ok', listening: 'ok', watching: 'ok', polling: 'ok', armed: 'ok', created: 'ok', updated: 'ok', delivered: 'ok', 'in sync': 'ok', idle: 'idle', unchanged: 'idle', skipped: 'idle', deactivated: 'warn', deleted: 'warn',
    'would-create': 'run', 'would-update': 'run', running: 'run', partial: 'warn', aborted: 'warn',
    failed: 'bad', failing: 'bad', paused: 'bad', broken: 'bad', reconnecting: 'bad', crashed: 'bad', 'dead-lettered': 'bad', refused: 'bad',
  };
  return html`<span class="badge b-${tone[value] ?? 'idle'}">${value}</span>`;
}
