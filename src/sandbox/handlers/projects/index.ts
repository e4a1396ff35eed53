/**
 * Projects (spec: Projects and tasks): filters, include_tasks, status names per language with the
 * meta blocks, admin_id as actor, descriptions merged per language, lists replaced only when
 * present, status history on a status change or a comment alone, cascade delete.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../../handler.js';
import { API_VERSION, fail, isRecord, ok, optionalInt, optionalString, RecordError, typeName, writeEach } from '../../kit.js';
import { exportFromStore, intQuery } from '../../exports.js';
import type { StoredRecord } from '../../store.js';
import { seedProjects } from '../../seed/projects.js';
import { dateOrNull, idList, pathId, recordFromPath, recordToUpdate } from '../content/values.js';
import { actingAdmin, adminIds, historyView, namesLanguage, nextEntryId, projectMatches, PROJECTS, statusBlock, statusComment, statusId, statusName, TASKS, type StatusEntry } from './common.js';
import { taskView, type Task } from './tasks.js';

interface Description {
  language_id: number;
  project_name: string;
  project_description: string;
}

/** A stored project. */
export interface Project {
  project_id: number;
  name: string;
  description: string;
  descriptions: Description[];
  customer_scope: string | number;
  customer_ids: number[];
  date_start: string | null;
  date_end: string | null;
  is_private: boolean;
  leader_admin_ids: number[];
  category_ids: number[];
  relationships: { target_type: string; target_id: number }[];
  status_id: number;
  status_history: StatusEntry[];
  created_by: number;
  modified_by: number;
  date_created: string;
  last_modified: string;
}

function defaultLanguageId(ctx: SandboxContext): number {
  const ref = ctx.reference();
  return (ref.languages.find((l) => l.code === (ctx.settings().DEFAULT_LANGUAGE ?? ref.master_language)) ?? ref.languages[0]).language_id;
}

/** descriptions[] merged per language_id: only sent languages and fields are overwritten. */
function mergeDescriptions(ctx: SandboxContext, stored: Description[], value: unknown): Description[] {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'descriptions must be an array of {language_id, project_name?, project_description?}', 'descriptions');
  const out = stored.map((d) => ({ ...d }));
  value.forEach((entry, i) => {
    const field = `descriptions[${i}]`;
    if (!isRecord(entry)) throw new RecordError('INVALID_PAYLOAD', `${field} must be an object`, field);
    const languageId = optionalInt(entry, 'language_id');
    if (languageId === undefined || !ctx.reference().languages.some((l) => l.language_id === languageId)) {
      throw new RecordError('INVALID_PAYLOAD', `${field}.language_id must name a shop language`, `${field}.language_id`);
    }
    let target = out.find((d) => d.language_id === languageId);
    if (!target) {
      target = { language_id: languageId, project_name: '', project_description: '' };
      out.push(target);
    }
    const name = optionalString(entry, 'project_name');
    if (name !== undefined) target.project_name = name;
    const description = optionalString(entry, 'project_description');
    if (description !== undefined) target.project_description = description;
  });
  return out.sort((a, b) => a.language_id - b.language_id);
}

function isPrivate(record: Record<string, unknown>): boolean {
  const v = record.is_private;
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  throw new RecordError('INVALID_PAYLOAD', `is_private must be a boolean, got ${JSON.stringify(v)}`, 'is_private');
}

function relationships(record: Record<string, unknown>): Project['relationships'] {
  const v = record.relationships;
  if (!Array.isArray(v)) throw new RecordError('INVALID_PAYLOAD', 'relationships must be an array of {target_type, target_id}', 'relationships');
  return v.map((r, i) => {
    if (!isRecord(r) || typeof r.target_type !== 'string' || r.target_type === '' || typeof r.target_id !== 'number' || !Number.isInteger(r.target_id) || r.target_id <= 0) {
      throw new RecordError('INVALID_PAYLOAD', `relationships[${i}] needs target_type (string) and target_id (positive integer)`, `relationships[${i}]`);
    }
    return { target_type: r.target_type, target_id: r.target_id };
  });
}

/** Tickets named in relationships carry the project id; a ticket no longer named loses it. */
function linkTickets(ctx: SandboxContext, project: Project): void {
  const linked = new Set(project.relationships.filter((r) => r.target_type === 'ticket').map((r) => r.target_id));
  for (const ticket of ctx.store.all('tickets')) {
    const id = ticket.ticket_id as number;
    const shouldLink = linked.has(id);
    if (shouldLink && ticket.project_id !== project.project_id) ctx.store.put('tickets', id, { ...ticket, project_id: project.project_id });
    if (!shouldLink && ticket.project_id === project.project_id) ctx.store.put('tickets', id, { ...ticket, project_id: null });
  }
}

/** Write the fields a create or update sent (lists only when present). */
function applyFields(ctx: SandboxContext, record: Record<string, unknown>, project: Project): void {
  const name = optionalString(record, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw new RecordError('INVALID_PAYLOAD', 'name must not be empty', 'name');
    project.name = name;
  }
  const defaultId = defaultLanguageId(ctx);
  const description = optionalString(record, 'description');
  if (description !== undefined) project.description = description;
  if (record.descriptions !== undefined) project.descriptions = mergeDescriptions(ctx, project.descriptions, record.descriptions);
  if (description !== undefined) project.descriptions = mergeDescriptions(ctx, project.descriptions, [{ language_id: defaultId, project_description: description }]);
  else if (record.descriptions !== undefined) project.description = project.descriptions.find((d) => d.language_id === defaultId)?.project_description ?? project.description;
  if (record.customer_scope !== undefined) {
    if (typeof record.customer_scope !== 'string' && typeof record.customer_scope !== 'number') throw new RecordError('INVALID_PAYLOAD', 'customer_scope must be a string or number', 'customer_scope');
    project.customer_scope = record.customer_scope;
  }
  if (record.customer_ids !== undefined) project.customer_ids = idList(record, 'customer_ids');
  if ('date_start' in record) project.date_start = dateOrNull(record, 'date_start');
  if ('date_end' in record) project.date_end = dateOrNull(record, 'date_end');
  if (project.date_start && project.date_end && project.date_end < project.date_start) throw new RecordError('INVALID_PAYLOAD', 'date_end is before date_start', 'date_end');
  if (record.is_private !== undefined) project.is_private = isPrivate(record);
  if (record.leader_admin_ids !== undefined) project.leader_admin_ids = adminIds(ctx, record, 'leader_admin_ids');
  if (record.category_ids !== undefined) project.category_ids = idList(record, 'category_ids');
  if (record.relationships !== undefined) project.relationships = relationships(record);
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'project_id');
    if (given !== undefined && ctx.store.has(PROJECTS, given)) throw new RecordError('Already exists', `Project ${given} already exists (use PUT)`, 'project_id', { project_id: given }, 409);
    if (optionalString(record, 'name') === undefined) throw new RecordError('INVALID_PAYLOAD', 'name is required', 'name');
    const admin = actingAdmin(ctx, record);
    const now = ctx.timestamp();
    const id = given ?? ctx.store.nextId(PROJECTS);
    const project: Project = {
      project_id: id, name: '', description: '', descriptions: [], customer_scope: '', customer_ids: [], date_start: null, date_end: null, is_private: false,
      leader_admin_ids: [], category_ids: [], relationships: [], status_id: statusId(ctx, 'project', record), status_history: [],
      created_by: admin, modified_by: admin, date_created: now, last_modified: now,
    };
    applyFields(ctx, record, project);
    project.status_history.push({ id: 1, status_id: project.status_id, comments: statusComment(record) ?? '', progress_percent: null, user_id: admin, date_added: now });
    ctx.store.put(PROJECTS, id, project as unknown as StoredRecord);
    linkTickets(ctx, project);
    return { project_id: id, status_id: project.status_id };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: project } = recordToUpdate<Project>(ctx, record, PROJECTS, 'project_id', 'Project');
    const admin = actingAdmin(ctx, record);
    const now = ctx.timestamp();
    applyFields(ctx, record, project);
    const previous = project.status_id;
    project.status_id = statusId(ctx, 'project', record, previous);
    const comment = statusComment(record);
    const historyAdded = project.status_id !== previous || comment !== undefined;
    if (historyAdded) {
      project.status_history.push({ id: nextEntryId(project.status_history), status_id: project.status_id, comments: comment ?? '', progress_percent: null, user_id: admin, date_added: now });
    }
    project.modified_by = admin;
    project.last_modified = now;
    ctx.store.put(PROJECTS, id, project as unknown as StoredRecord);
    if (record.relationships !== undefined) linkTickets(ctx, project);
    return { project_id: id, status_id: project.status_id, status_history_added: historyAdded };
  });

function projectView(ctx: SandboxContext, project: Project, language: 'de' | 'en', withTasks: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = {
    ...project,
    status_name: statusName(ctx, 'project', project.status_id, language),
    status_history: historyView(ctx, 'project', project.status_history, language),
  };
  if (withTasks) {
    view.tasks = ctx.store.list(TASKS, { where: [{ field: 'project_id', op: '=', value: project.project_id }] }).records.map((t) => taskView(ctx, t as unknown as Task, language));
  }
  return view;
}

function withMeta(ctx: SandboxContext, body: unknown, language: 'de' | 'en'): Record<string, unknown> {
  return { ...(body as Record<string, unknown>), project_statuses: statusBlock(ctx, 'project', language), task_statuses: statusBlock(ctx, 'task', language) };
}

const exportList: OperationHandler = (ctx, req) => {
  const language = namesLanguage(ctx, req);
  // The registry filters are checked (integers, 0/1 flags) before any record is read.
  const withTasks = intQuery(req.query, 'include_tasks', 0, 1) === 1;
  const reply = exportFromStore(ctx, req, {
    manualParams: ['customer_id', 'category_id', 'leader_admin_id', 'include_tasks', 'language'],
    keep: (r) => projectMatches(req.query, r as unknown as Project),
    view: (r) => projectView(ctx, r as unknown as Project, language, withTasks),
  });
  return ok(withMeta(ctx, reply.body, language));
};

const exportOne: OperationHandler = (ctx, req) => {
  const language = namesLanguage(ctx, req);
  const project = recordFromPath<Project>(ctx, req, PROJECTS, 'Project');
  const withTasks = intQuery(req.query, 'include_tasks', 0, 1) === 1;
  return ok(withMeta(ctx, { success: true, api_version: API_VERSION, type: typeName(req.resource), data: [projectView(ctx, project, language, withTasks)] }, language));
};

/** DELETE /delete/json/project/{id}: its tasks go; linked tickets and orders stay, detached. */
const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  const project = ctx.store.get(PROJECTS, id) as Project | undefined;
  if (!project) fail(404, 'Not found', `Project ${id} does not exist`);
  const tasks = ctx.store.list(TASKS, { where: [{ field: 'project_id', op: '=', value: id }] }).records.map((t) => t.task_id as number);
  for (const taskId of tasks) ctx.store.delete(TASKS, taskId);
  const detached: { tickets: number[]; orders: number[] } = { tickets: [], orders: [] };
  for (const [resource, idField, key] of [['tickets', 'ticket_id', 'tickets'], ['orders', 'orders_id', 'orders']] as const) {
    const named = new Set(project.relationships.filter((r) => r.target_type === key.slice(0, -1)).map((r) => r.target_id));
    for (const record of ctx.store.all(resource)) {
      const recordId = record[idField] as number;
      if (record.project_id === id) ctx.store.put(resource, recordId, { ...record, project_id: null });
      if (record.project_id === id || named.has(recordId)) detached[key].push(recordId);
    }
  }
  ctx.store.delete(PROJECTS, id);
  return ok({ success: true, api_version: API_VERSION, type: typeName(req.resource), deleted_id: id, deleted: [id], deleted_tasks: tasks, detached });
};

/** The sandbox handler of projects (registered in handlers/index.ts). */
export const projectsHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedProjects(ctx);
  },
  export: exportList,
  exportOne,
  create,
  update,
  delete: deleteOne,
};
