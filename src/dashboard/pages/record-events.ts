/** Rendering of per-record events: outcome, issues with codes, payload and what changed. */
import { isCutMarker, type DeadLetter, type RecordEvent, type StateStore, type StoredIssue } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';
import { timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import { payloadChanges, previousPayload, type Change } from './changes.js';
import { dateOf } from './context.js';

/** A human label for a record found in its payload: the first `…name` field, searched a few levels deep. */
export function recordLabel(payload: unknown, depth = 0): string | undefined {
  if (depth > 4 || payload === null || typeof payload !== 'object') return undefined;
  const entries = Array.isArray(payload) ? payload.map((v, i) => [String(i), v] as const) : Object.entries(payload as Record<string, unknown>);
  for (const [k, v] of entries) if (typeof v === 'string' && v.trim() && /(^|_)name$/i.test(k) && !/^seo_/i.test(k)) return v;
  for (const [, v] of entries) {
    const found = recordLabel(v, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function issue(kind: 'error' | 'warning', i: StoredIssue): SafeHtml {
  return html`<div class="issue ${kind}"><code class="code">${i.code}</code> ${i.message}${i.field ? html` <span class="muted small">field</span> <code>${i.field}</code>` : ''}</div>`;
}

/** Warnings and the error of an event, each with its code. */
export function issues(e: Pick<RecordEvent, 'warnings' | 'error'>): SafeHtml {
  if (!e.error && e.warnings.length === 0) return html`<span class="muted">–</span>`;
  return html`${e.error ? issue('error', e.error) : ''}${e.warnings.map((w) => issue('warning', w))}`;
}

/** Pretty JSON for a payload or value. */
export function jsonBlock(value: unknown): SafeHtml {
  return html`<pre>${JSON.stringify(value, null, 2) ?? 'undefined'}</pre>`;
}

/**
 * Read the changes stored with an event. Accepts the shapes a diff is commonly stored in:
 * a list of `{path|field, before|from|old, after|to|new}`, or an object keyed by path whose values
 * are `{before, after}` / `{shop, next}` pairs or `[before, after]` tuples.
 */
export function readChanges(diff: unknown): Change[] | undefined {
  const pick = (o: Record<string, unknown>, keys: string[]): unknown => {
    for (const k of keys) if (k in o) return o[k];
    return undefined;
  };
  if (isRecord(diff) && Array.isArray(diff.changes)) return readChanges(diff.changes);
  if (Array.isArray(diff)) {
    const out: Change[] = [];
    for (const d of diff) {
      if (!isRecord(d)) return undefined;
      const path = pick(d, ['path', 'field', 'key']);
      out.push({ path: Array.isArray(path) ? path.join('.') : String(path ?? '?'), before: pick(d, ['before', 'from', 'old', 'shop', 'previous']), after: pick(d, ['after', 'to', 'new', 'erp', 'next']) });
    }
    return out;
  }
  if (isRecord(diff)) {
    const out: Change[] = [];
    for (const [path, v] of Object.entries(diff)) {
      if (Array.isArray(v) && v.length === 2) out.push({ path, before: v[0], after: v[1] });
      else if (isRecord(v) && ('before' in v || 'after' in v)) out.push({ path, before: v.before, after: v.after });
      else if (isRecord(v) && ('from' in v || 'to' in v)) out.push({ path, before: v.from, after: v.to });
      else if (isRecord(v) && ('shop' in v || 'next' in v)) out.push({ path, before: v.shop, after: v.next });
      else return undefined;
    }
    return out;
  }
  return undefined;
}

function valueText(v: unknown): string {
  if (v === undefined) return '(absent)';
  return typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
}

/** A before/after table of changes. */
export function changesTable(changes: readonly Change[]): SafeHtml {
  if (changes.length === 0) return html`<span class="muted">no field changed</span>`;
  return html`<table class="diff"><thead><tr><th>Field</th><th>Before</th><th>After</th></tr></thead><tbody>${changes.map(
    (c) => html`<tr><td><code>${c.path}</code></td><td class="before mono">${valueText(c.before)}</td><td class="after mono">${valueText(c.after)}</td></tr>`,
  )}</tbody></table>`;
}

/** What changed in an update: a before/after table, or the raw diff when its shape is unknown. */
export function diffBlock(diff: unknown): SafeHtml {
  const changes = readChanges(diff);
  return changes ? changesTable(changes) : jsonBlock(diff);
}

/** What event rows show beyond the events themselves, read from the state before rendering. */
export interface EventExtras {
  /** The dead letter of a record, by `pipeline\0erpKey`. */
  readonly letters: ReadonlyMap<string, DeadLetter>;
  /** The payload accepted before an update event, by event id. */
  readonly previous: ReadonlyMap<number, { payload: unknown; runId: number }>;
}

const letterKey = (pipeline: string, erpKey: string) => `${pipeline}\u0000${erpKey}`;

/** Read the letters and previous payloads event rows show. */
export async function eventExtras(state: StateStore, events: readonly RecordEvent[]): Promise<EventExtras> {
  const letters = new Map<string, DeadLetter>();
  const previous = new Map<number, { payload: unknown; runId: number }>();
  for (const e of events) {
    if (e.payload === undefined && e.erpKey !== undefined && !letters.has(letterKey(e.pipeline, e.erpKey))) {
      // An excerpt: a run's page lists up to 200 failures, each letter's record up to 1 MiB.
      const [letter] = await state.deadLetters.list({ pipeline: e.pipeline, erpKey: e.erpKey, limit: 1, excerpt: true });
      if (letter) letters.set(letterKey(e.pipeline, e.erpKey), letter);
    }
    if ((e.diff === undefined || e.diff === null) && e.outcome === 'updated' && e.payload !== undefined && !isCutMarker(e.payload)) {
      const prev = await previousPayload(state, e);
      if (prev) previous.set(e.id, prev);
    }
  }
  return { letters, previous };
}

/** Payload, changes, error details and (for failures) the source record of one event. */
export function eventDetails(e: RecordEvent, extras: EventExtras): SafeHtml {
  const parts: SafeHtml[] = [];
  if (e.diff !== undefined && e.diff !== null) {
    parts.push(html`<details id="diff-${e.id}" open><summary>What changed</summary>${diffBlock(e.diff)}</details>`);
  } else if (e.outcome === 'updated' && e.payload !== undefined) {
    const prev = extras.previous.get(e.id);
    if (prev) parts.push(html`<details id="diff-${e.id}" open><summary>What changed since run #${prev.runId}</summary>${changesTable(payloadChanges(prev.payload, e.payload))}</details>`);
  }
  if (e.payload !== undefined) parts.push(html`<details id="payload-${e.id}"><summary>Payload</summary>${jsonBlock(e.payload)}</details>`);
  if (e.error?.details !== undefined) parts.push(html`<details id="error-${e.id}"><summary>Error details</summary>${jsonBlock(e.error.details)}</details>`);
  if ((e.outcome === 'failed' || e.outcome === 'dead-lettered') && e.payload === undefined && e.erpKey !== undefined) {
    const letter = extras.letters.get(letterKey(e.pipeline, e.erpKey));
    if (letter) parts.push(html`<details id="record-${e.id}"><summary>Source record</summary>${jsonBlock(letter.record)}</details>`);
  }
  return parts.length ? html`${parts}` : html`<span class="muted">–</span>`;
}

/** Table rows of events; `withRun` adds the run and pipeline columns (record history). */
export function eventRows(events: readonly RecordEvent[], view: { now: Date; extras: EventExtras }, withRun: boolean): SafeHtml {
  const { now, extras } = view;
  return html`${events.map(
    (e) => html`<tr data-event-id="${e.id}" data-outcome="${e.outcome}" data-erp-key="${e.erpKey ?? ''}">
${withRun ? html`<td>${timeCell(dateOf(e.at), now)}</td><td class="nowrap"><a href="/runs/${e.runId}">#${e.runId}</a> <span class="muted small">${e.pipeline}</span></td>` : ''}
<td class="mono">${e.erpKey !== undefined ? html`<a href="/records?q=${encodeURIComponent(e.erpKey)}">${e.erpKey}</a>` : '–'}</td>
<td class="mono">${e.shopId !== undefined ? String(e.shopId) : '–'}</td>
<td class="label">${recordLabel(e.payload) ?? (e.payload === undefined && e.erpKey !== undefined ? recordLabel(extras.letters.get(letterKey(e.pipeline, e.erpKey))?.record) : undefined) ?? ''}</td>
<td>${badge(e.outcome)}</td>
<td class="issues">${issues(e)}</td>
<td>${eventDetails(e, extras)}</td>
</tr>`,
  )}`;
}

/** Column headers matching `eventRows`. */
export function eventHeaders(withRun: boolean): SafeHtml {
  return html`<tr>${withRun ? html`<th>When</th><th>Run</th>` : ''}<th>ERP key</th><th>Shop id</th><th>Name</th><th>Outcome</th><th>Warnings and errors</th><th>Payload / changes</th></tr>`;
}
