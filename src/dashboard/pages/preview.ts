/**
 * Mapping preview of one push pipeline: the next records after its cursor, each beside its payload,
 * its field diff against the shop's current record and every finding of the mapping and the guard
 * rails. The engine is the dry run's (`previewPipeline`); this page only renders what it found.
 */
import { errorCode } from '../../errors.js';
import { PREVIEW_MAX_RECORDS, previewLimit, type PipelinePreview, type PreviewedRecord, type PreviewOptions } from '../../pipeline/preview.js';
import type { CursorPosition } from '../../erp/types.js';
import { formatCount, formatDuration } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import type { DashboardPipeline } from '../types.js';
import type { PageResult } from './context.js';
import { originText } from './dead-letters.js';
import { changesTable, jsonBlock, readChanges, recordLabel } from './record-events.js';

/** What the preview page needs. */
export interface PreviewPageInput {
  readonly pipelines: readonly DashboardPipeline[];
  readonly name: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly preview?: (name: string, options: PreviewOptions) => Promise<PipelinePreview>;
  /** Aborted when the browser goes away. */
  readonly signal: AbortSignal;
}

/** How each planned action reads on the page. */
const VERDICT: Readonly<Record<PreviewedRecord['action'], string>> = { create: 'would-create', update: 'would-update', skip: 'unchanged', fail: 'refused', deactivate: 'would-deactivate', delete: 'would-delete' };

/** The page's address for a pipeline (and a record count). */
export function previewHref(name: string, limit?: number): string {
  return `/pipelines/${encodeURIComponent(name)}/preview${limit !== undefined ? `?limit=${limit}` : ''}`;
}

function cursorText(after: CursorPosition | undefined): SafeHtml {
  if (!after) return html`<span class="muted">no cursor yet: from the start of the source</span>`;
  return html`<code>${after.value === null ? 'null' : String(after.value)}</code>${after.key !== null ? html` <span class="muted small">after key</span> <code>${after.key}</code>` : ''}`;
}

function finding(kind: 'error' | 'warning', f: { code: string; message: string; field?: string }): SafeHtml {
  return html`<div class="issue ${kind}"><code class="code">${f.code}</code> ${f.message}${f.field ? html` <span class="muted small">field</span> <code>${f.field}</code>` : ''}</div>`;
}

/** What the shop would see of this record. */
function changes(r: PreviewedRecord): SafeHtml {
  switch (r.action) {
    case 'create':
      return html`<p class="muted small">A new record in the shop: every field of the payload is sent.</p>`;
    case 'skip':
      return html`<p class="muted small">Unchanged since the payload the shop last accepted; nothing would be sent.</p>`;
    case 'fail':
      return html`<p class="muted small">Nothing would be sent; a run would dead-letter the record with the findings above.</p>`;
    case 'deactivate':
    case 'delete':
      return html`<p class="muted small">Gone from the ERP: a complete read would ${r.action} the shop's record (onMissing).</p>`;
    case 'update': {
      if (r.diff === undefined) return html`<p class="muted small">No shop id is known, so the shop's record was not read; the update goes by the mapping's shop key.</p>`;
      const list = readChanges(r.diff) ?? [];
      return list.length === 0 ? html`<p class="muted small" data-no-change>No field differs from the shop's current record.</p>` : changesTable(list);
    }
  }
}

function recordPanel(r: PreviewedRecord, index: number): SafeHtml {
  const label = recordLabel(r.payload) ?? recordLabel(r.source);
  const verdict = VERDICT[r.action];
  const origin = r.origin ? originText({ origin: r.origin }) : '';
  const findings = [...(r.errors ?? []).map((e) => finding('error', e)), ...(r.warnings ?? []).map((w) => finding('warning', w))];
  return html`<section class="panel preview-record ${r.action}" data-erp-key="${r.erpKey}" data-action="${verdict}">
<div class="card-head"><h2><span class="muted small">#${String(index + 1)}</span> <code>${r.erpKey}</code> ${label ? html`<span class="label">${label}</span>` : ''}</h2><span>${r.shopId !== undefined ? html`<span class="muted small">shop id</span> <code>${String(r.shopId)}</code> ` : ''}${badge(verdict)}</span></div>
${origin ? html`<div class="muted small" data-origin>${origin}</div>` : ''}
${findings.length ? html`<div class="findings">${findings}</div>` : ''}
<div class="pv-grid">
<div><h3>Source record</h3>${jsonBlock(r.source)}</div>
<div><h3>Payload</h3>${r.payload !== undefined ? jsonBlock(r.payload) : html`<p class="muted small">No payload: the record was refused before it was complete.</p>`}</div>
<div class="pv-changes"><h3>Against the shop</h3>${changes(r)}</div>
</div>
</section>`;
}

function stat(label: string, value: number, tone?: string): SafeHtml {
  return html`<div class="panel stat"><div class="v"${tone && value > 0 ? html` style="color:var(--${tone})"` : ''}>${formatCount(value)}</div><div class="k">${label}</div></div>`;
}

function limitForm(name: string, limit: number): SafeHtml {
  return html`<form class="panel filters" method="get" action="${previewHref(name)}">
<label>Records<input type="number" name="limit" min="1" max="${String(PREVIEW_MAX_RECORDS)}" value="${String(limit)}"></label>
<button type="submit">Preview again</button>
<a href="/runs?pipeline=${encodeURIComponent(name)}">Runs of ${name}</a>
<span class="small muted">Reads the ERP and the shop; writes to neither, nor to shopsync's state.</span>
</form>`;
}

function intro(p: DashboardPipeline): SafeHtml {
  return html`<h1>Preview <span class="muted small">${p.name}</span></h1>
<p class="muted">What the next run would do with the next records after the cursor: read from the ERP, mapped, checked by the guard rails and compared with the shop's current record. Nothing is written — not to the shop, not to the ERP, not to shopsync's state.</p>`;
}

function found(p: DashboardPipeline, preview: PipelinePreview): SafeHtml {
  const n = (action: PreviewedRecord['action']) => preview.records.filter((r) => r.action === action).length;
  const warnings = preview.records.reduce((sum, r) => sum + (r.warnings?.length ?? 0), 0);
  const shown = preview.records.length;
  const tail = preview.stopped
    ? html`<div class="flash bad" data-preview-stopped>The preview stopped ${preview.stopped === 'timeout' ? 'at its time limit' : 'early'} after ${formatCount(shown)} record(s); these are what was read until then.</div>`
    : preview.more
      ? html`<p class="muted small" data-more>More records follow after these ${formatCount(shown)}; a run would go on with them.</p>`
      : html`<p class="muted small" data-more="none">${shown === 0 ? 'The source has no records after the cursor: the next run would find nothing to do.' : `That is every record the source has after the cursor.`}</p>`;
  return html`<dl class="facts">
<dt>Flow</dt><dd>ERP → shop <b>${p.resource ?? preview.resource}</b></dd>
<dt>Read after</dt><dd data-cursor>${cursorText(preview.after)}</dd>
<dt>Looked up</dt><dd>${formatCount(shown)} of at most ${formatCount(preview.limit)} records · ${formatCount(preview.requests)} shop ${preview.requests === 1 ? 'read' : 'reads'} · took ${formatDuration(preview.durationMs)}</dd>
</dl>
<div class="summary-grid" data-preview-summary>
${stat('would create', n('create'))}${stat('would update', n('update'))}${stat('unchanged', n('skip'))}${stat('refused', n('fail'), 'bad')}${stat('warnings', warnings, 'warn')}
</div>
${tail}
${shown ? html`<div class="preview-records">${preview.records.map((r, i) => recordPanel(r, i))}</div>` : ''}`;
}

function failure(error: { code: string; message: string }): SafeHtml {
  return html`<section class="panel preview-error" data-preview-error>
<h2>The preview could not be made</h2>
<div class="issue error"><code class="code">${error.code}</code> ${error.message}</div>
<p class="muted small">Nothing was written. <code>shopsync doctor</code> checks the connections; the pipeline's last runs may say more.</p>
</section>`;
}

/** Render the preview of one pipeline (reading its source and the shop now). */
export async function previewPage(input: PreviewPageInput): Promise<PageResult> {
  const p = input.pipelines.find((q) => q.name === input.name);
  if (!p) {
    return { title: 'Pipeline not found', nav: 'overview', status: 404, live: false, body: html`<h1>Pipeline not found</h1><p>There is no pipeline named <code>${input.name}</code>. <a href="/">Overview</a></p>` };
  }
  const title = `Preview ${p.name}`;
  if (p.direction !== 'push') {
    return {
      title,
      nav: 'overview',
      live: false,
      body: html`${intro(p)}<section class="panel preview-note" data-preview-note><p><b>${p.name}</b> is a pull pipeline (shop <b>${p.resource ?? '?'}</b> → ERP): its records come from the shop's export, not from the ERP, so there is no mapping of ERP records to preview here.</p><p>To see what it would deliver to the ERP without writing anything, run <code>shopsync sync ${p.name} --dry-run</code>.</p></section>`,
    };
  }
  const limit = previewLimit(input.query.limit);
  const head = html`${intro(p)}${limitForm(p.name, limit)}`;
  if (!input.preview) {
    return { title, nav: 'overview', live: false, status: 501, body: html`${head}${failure({ code: 'PREVIEW_UNAVAILABLE', message: 'this dashboard was started without access to the pipelines, so it cannot preview them; use shopsync mappings preview or shopsync sync --dry-run' })}` };
  }
  let preview: PipelinePreview;
  try {
    preview = await input.preview(p.name, { limit, signal: input.signal });
  } catch (err) {
    // A mapping that does not load, a connection that is not configured: said on the page, never a stack.
    return { title, nav: 'overview', live: false, status: 502, body: html`${head}${failure({ code: errorCode(err), message: err instanceof Error ? err.message : String(err) })}` };
  }
  if (preview.error) return { title, nav: 'overview', live: false, status: 502, body: html`${head}${failure(preview.error)}` };
  return { title, nav: 'overview', live: false, body: html`${head}${found(p, preview)}` };
}
