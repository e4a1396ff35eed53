/**
 * What projects and tasks share: status names per language (the meta blocks), the status history
 * with the acting admin, admin and id-list validation.
 */
import type { SandboxContext, SandboxRequest } from '../../handler.js';
import { fail, optionalInt, optionalString, RecordError } from '../../kit.js';
import { idList } from '../content/values.js';

/** German names of the seeded status values; other names are shown as stored. */
const GERMAN: Readonly<Record<string, string>> = {
  Planned: 'Geplant',
  Active: 'Aktiv',
  'On hold': 'Pausiert',
  Done: 'Erledigt',
  Open: 'Offen',
  'In progress': 'In Bearbeitung',
  Review: 'Prüfung',
};

export type StatusKind = 'project' | 'task';

export const PROJECTS = 'projects';
export const TASKS = 'project_tasks';

/** Whether a project passes the customer_id / category_id / leader_admin_id filters of a query. */
export function projectMatches(
  query: Readonly<Record<string, string>>,
  project: { readonly customer_ids: readonly number[]; readonly category_ids: readonly number[]; readonly leader_admin_ids: readonly number[] },
): boolean {
  const num = (p: string) => (query[p] === undefined || query[p] === '' ? undefined : Number(query[p]));
  const customer = num('customer_id');
  const category = num('category_id');
  const leader = num('leader_admin_id');
  return (
    (customer === undefined || project.customer_ids.includes(customer)) &&
    (category === undefined || project.category_ids.includes(category)) &&
    (leader === undefined || project.leader_admin_ids.includes(leader))
  );
}

/** One status-history entry as stored. */
export interface StatusEntry {
  id: number;
  status_id: number;
  comments: string;
  progress_percent: number | null;
  user_id: number;
  date_added: string;
}

/** The `language` query (de|en); the shop's default language when absent. */
export function namesLanguage(ctx: SandboxContext, req: SandboxRequest): 'de' | 'en' {
  const raw = req.query.language;
  if (raw === undefined || raw === '') return (ctx.settings().DEFAULT_LANGUAGE ?? 'de') === 'en' ? 'en' : 'de';
  if (raw !== 'de' && raw !== 'en') fail(400, 'INVALID_PAYLOAD', `language is de or en, got \`${raw}\``);
  return raw;
}

function statuses(ctx: SandboxContext, kind: StatusKind) {
  return kind === 'project' ? ctx.reference().project_statuses : ctx.reference().task_statuses;
}

/** The meta block `project_statuses[]` / `task_statuses[]`: every status with its name in the language. */
export function statusBlock(ctx: SandboxContext, kind: StatusKind, language: 'de' | 'en'): { id: number; name: string; is_default: boolean }[] {
  return statuses(ctx, kind).map((s, i) => ({ id: s.id, name: language === 'de' ? (GERMAN[s.name] ?? s.name) : s.name, is_default: i === 0 }));
}

/** A status name in the language. */
export function statusName(ctx: SandboxContext, kind: StatusKind, id: number, language: 'de' | 'en'): string {
  return statusBlock(ctx, kind, language).find((s) => s.id === id)?.name ?? '';
}

/** status_id validated against the status administration; the default (first) status when absent. */
export function statusId(ctx: SandboxContext, kind: StatusKind, record: Record<string, unknown>, current?: number): number {
  const id = optionalInt(record, 'status_id');
  const list = statuses(ctx, kind);
  if (id === undefined) return current ?? list[0].id;
  if (!list.some((s) => s.id === id)) throw new RecordError('INVALID_PAYLOAD', `status_id ${id} is no ${kind} status; known: ${list.map((s) => s.id).join(', ')}`, 'status_id');
  return id;
}

/** The acting admin (`admin_id`, absent = 0 = system), validated. */
export function actingAdmin(ctx: SandboxContext, record: Record<string, unknown>): number {
  const id = optionalInt(record, 'admin_id') ?? 0;
  if (id < 0 || (id > 0 && !ctx.reference().admins.some((a) => a.admin_id === id))) throw new RecordError('INVALID_PAYLOAD', `admin_id ${id} is no administrator (0 = system)`, 'admin_id');
  return id;
}

/** A list of administrator ids, validated. */
export function adminIds(ctx: SandboxContext, record: Record<string, unknown>, field: string): number[] {
  const ids = idList(record, field);
  const unknown = ids.filter((id) => !ctx.reference().admins.some((a) => a.admin_id === id));
  if (unknown.length > 0) throw new RecordError('INVALID_PAYLOAD', `${field}: no administrator ${unknown.join(', ')}`, field);
  return ids;
}

/** The user name shown for a history entry. */
export function userName(ctx: SandboxContext, id: number): string {
  return id === 0 ? 'System' : (ctx.reference().admins.find((a) => a.admin_id === id)?.name ?? `Admin ${id}`);
}

/** The status_comment of a write (undefined when absent or empty). */
export function statusComment(record: Record<string, unknown>): string | undefined {
  const v = optionalString(record, 'status_comment');
  return v === undefined || v.trim() === '' ? undefined : v;
}

/** History entries for the export: with status_name and user_name. */
export function historyView(ctx: SandboxContext, kind: StatusKind, entries: readonly StatusEntry[], language: 'de' | 'en'): Record<string, unknown>[] {
  return entries.map((e) => ({ ...e, status_name: statusName(ctx, kind, e.status_id, language), user_name: userName(ctx, e.user_id) }));
}

/** A new history entry id (unique per sandbox). */
export function nextEntryId(entries: readonly StatusEntry[]): number {
  return entries.reduce((max, e) => Math.max(max, e.id), 0) + 1;
}
