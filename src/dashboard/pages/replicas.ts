/** The overview's replicas panel (PostgreSQL state): who is alive, what each runs, and the jobs waiting, running or given up. */
import type { JobView, ReplicasOverview } from '../../jobs/overview.js';
import { formatDuration } from '../format.js';
import { html, type SafeHtml } from '../html.js';

const JOB_TONE: Readonly<Record<JobView['state'], string>> = { queued: 'idle', running: 'run', retrying: 'warn', failed: 'bad' };
const JOB_LABEL: Readonly<Record<JobView['state'], string>> = { queued: 'queued', running: 'running', retrying: 'retrying', failed: 'failing' };

function jobBadge(state: JobView['state']): SafeHtml {
  return html`<span class="badge b-${JOB_TONE[state]}">${JOB_LABEL[state]}</span>`;
}

/** The panel, or nothing when the daemon runs without replicas. */
export function replicasPanel(overview: ReplicasOverview | undefined): SafeHtml {
  if (!overview) return html``;
  const { replicas, jobs } = overview;
  const failing = jobs.filter((j) => j.state === 'failed');
  const replicaRows = replicas.map(
    (r) => html`<tr data-replica="${r.name}"><td><b>${r.name}</b> <span class="muted small">${r.host} · pid ${String(r.pid)}</span></td><td><span class="badge b-${r.state === 'alive' ? 'ok' : r.state === 'silent' ? 'bad' : 'idle'}">${r.state}</span></td><td>${formatDuration(r.heartbeatAgeMs)} ago</td><td>${r.running.length ? r.running.join(', ') : html`<span class="muted">idle</span>`}</td></tr>`,
  );
  const jobRows = jobs.map(
    (j) => html`<tr data-job="${j.id}" data-job-state="${JOB_LABEL[j.state]}"><td>${j.pipeline ?? html`<span class="muted">job ${j.id}</span>`}</td><td>${jobBadge(j.state)}</td><td>${formatDuration(j.ageMs)}</td><td>${j.replica ?? (j.state === 'running' ? html`<span class="muted">unknown (dead?)</span>` : html`<span class="muted">–</span>`)}</td><td>${String(j.attempts)}/${String(j.maxAttempts)}</td><td class="small">${j.reason ?? ''}</td><td class="issue error small">${j.lastError ?? ''}</td></tr>`,
  );
  return html`<section class="panel" data-replicas>
<h2>Replicas</h2>
${failing.length > 0 ? html`<p class="issue error" data-failing-jobs>${String(failing.length)} ${failing.length === 1 ? 'job has' : 'jobs have'} failed ${String(failing[0]!.maxAttempts)} times and ${failing.length === 1 ? 'is' : 'are'} no longer retried: ${failing.map((j) => j.pipeline ?? j.id).join(', ')}. The next tick (or Run now) tries again; the runs page says why.</p>` : ''}
<div class="table-wrap"><table><thead><tr><th>Replica</th><th>State</th><th>Heartbeat</th><th>Running</th></tr></thead><tbody>${replicaRows.length ? replicaRows : html`<tr><td colspan="4" class="muted">no replica has registered</td></tr>`}</tbody></table></div>
<h3>Jobs</h3>
<div class="table-wrap"><table><thead><tr><th>Pipeline</th><th>State</th><th>Age</th><th>Replica</th><th>Attempts</th><th>Why</th><th>Last error</th></tr></thead><tbody>${jobRows.length ? jobRows : html`<tr><td colspan="7" class="muted">no jobs queued or running</td></tr>`}</tbody></table></div>
</section>`;
}
