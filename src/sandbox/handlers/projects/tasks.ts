/**
 * Project tasks: filters (also through the project's customers and categories), status history on
 * a status change or a comment alone, with the progress at that moment.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../../handler.js';
import { API_VERSION, fail, ok, optionalInt, optionalString, RecordError, typeName, writeEach } from '../../kit.js';
import { exportFromStore, intQuery } from '../../exports.js';
import type { StoredRecord } from '../../store.js';
import { dateOrNull, decimalString, pathId, recordFromPath, recordToUpdate, requireDecimal } from '../content/values.js';
import { actingAdmin, adminIds, historyView, namesLanguage, nextEntryId, projectMatches, PROJECTS, statusBlock, statusComment, statusId, statusName, TASKS, type StatusEntry } from './common.js';

/** A stored task. */
export interface Task {
  task_id: number;
  project_id: number;
  name: string;
  priority: number;
  progress_percent: number;
  date_start: string | null;
  due_date: string | null;
  hours_planned: number;
  hours_actual: number | null;
  status_id: number;
  assigned_admin_ids: number[];
  status_history: StatusEntry[];
  created_by: number;
  modified_by: number;
  date_created: string;
  last_modified: string;
}

function bounded(record: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const v = optionalInt(record, field);
  if (v !== undefined && (v < min || v > max)) throw new RecordError('INVALID_PAYLOAD', `${field} must be ${min} to ${max}, got ${v}`, field);
  return v;
}

function projectId(ctx: SandboxContext, record: Record<string, unknown>): number | undefined {
  const id = optionalInt(record, 'project_id');
  if (id !== undefined && !ctx.store.has(PROJECTS, id)) throw new RecordError('INVALID_PAYLOAD', `project_id ${id}: no such project`, 'project_id');
  return id;
}

function applyFields(ctx: SandboxContext, record: Record<string, unknown>, task: Task): void {
  const name = optionalString(record, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw new RecordError('INVALID_PAYLOAD', 'name must not be empty', 'name');
    task.name = name;
  }
  task.project_id = projectId(ctx, record) ?? task.project_id;
  task.priority = bounded(record, 'priority', 1, 5) ?? task.priority;
  task.progress_percent = bounded(record, 'progress_percent', 0, 100) ?? task.progress_percent;
  if ('date_start' in record) task.date_start = dateOrNull(record, 'date_start');
  if ('due_date' in record) task.due_date = dateOrNull(record, 'due_date');
  if (record.hours_planned !== undefined) task.hours_planned = requireDecimal(record, 'hours_planned');
  if ('hours_actual' in record) task.hours_actual = record.hours_actual === null ? null : requireDecimal(record, 'hours_actual');
  if (record.assigned_admin_ids !== undefined) task.assigned_admin_ids = adminIds(ctx, record, 'assigned_admin_ids');
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'task_id');
    if (given !== undefined && ctx.store.has(TASKS, given)) throw new RecordError('Already exists', `Task ${given} already exists (use PUT)`, 'task_id', { task_id: given }, 409);
    if (record.project_id === undefined) throw new RecordError('INVALID_PAYLOAD', 'project_id is required', 'project_id');
    if (optionalString(record, 'name') === undefined) throw new RecordError('INVALID_PAYLOAD', 'name is required', 'name');
    const admin = actingAdmin(ctx, record);
    const now = ctx.timestamp();
    const id = given ?? ctx.store.nextId(TASKS);
    const task: Task = {
      task_id: id, project_id: 0, name: '', priority: 3, progress_percent: 0, date_start: null, due_date: null, hours_planned: 0, hours_actual: null,
      status_id: statusId(ctx, 'task', record), assigned_admin_ids: [], status_history: [], created_by: admin, modified_by: admin, date_created: now, last_modified: now,
    };
    applyFields(ctx, record, task);
    task.status_history.push({ id: 1, status_id: task.status_id, comments: statusComment(record) ?? '', progress_percent: task.progress_percent, user_id: admin, date_added: now });
    ctx.store.put(TASKS, id, task as unknown as StoredRecord);
    return { task_id: id, project_id: task.project_id, status_id: task.status_id };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: task } = recordToUpdate<Task>(ctx, record, TASKS, 'task_id', 'Task');
    const admin = actingAdmin(ctx, record);
    applyFields(ctx, record, task);
    const previous = task.status_id;
    task.status_id = statusId(ctx, 'task', record, previous);
    const comment = statusComment(record);
    const historyAdded = task.status_id !== previous || comment !== undefined;
    const now = ctx.timestamp();
    if (historyAdded) {
      task.status_history.push({ id: nextEntryId(task.status_history), status_id: task.status_id, comments: comment ?? '', progress_percent: task.progress_percent, user_id: admin, date_added: now });
    }
    task.modified_by = admin;
    task.last_modified = now;
    ctx.store.put(TASKS, id, task as unknown as StoredRecord);
    return { task_id: id, status_id: task.status_id, status_history_added: historyAdded };
  });

/** A task as exported: hours as decimal strings, status names in the language. */
export function taskView(ctx: SandboxContext, task: Task, language: 'de' | 'en'): Record<string, unknown> {
  return {
    ...task,
    hours_planned: decimalString(task.hours_planned),
    hours_actual: task.hours_actual === null ? null : decimalString(task.hours_actual),
    status_name: statusName(ctx, 'task', task.status_id, language),
    status_history: historyView(ctx, 'task', task.status_history, language),
  };
}

const exportList: OperationHandler = (ctx, req) => {
  const language = namesLanguage(ctx, req);
  // priority, progress_min/max and due_from/to are registry filters; these need the task's project or an array.
  const adminId = intQuery(req.query, 'admin_id');
  const byProject = req.query.customer_id || req.query.category_id;
  return ok({
    ...(exportFromStore(ctx, req, {
      manualParams: ['admin_id', 'customer_id', 'category_id', 'language'],
      keep: (r) => {
        const t = r as unknown as Task;
        if (adminId !== undefined && !t.assigned_admin_ids.includes(adminId)) return false;
        if (byProject) {
          const project = ctx.store.get(PROJECTS, t.project_id) as Parameters<typeof projectMatches>[1] | undefined;
          if (!project || !projectMatches({ customer_id: req.query.customer_id ?? '', category_id: req.query.category_id ?? '' }, { ...project, leader_admin_ids: [] })) return false;
        }
        return true;
      },
      view: (r) => taskView(ctx, r as unknown as Task, language),
    }).body as Record<string, unknown>),
    task_statuses: statusBlock(ctx, 'task', language),
  });
};

const exportOne: OperationHandler = (ctx, req) => {
  const language = namesLanguage(ctx, req);
  const task = recordFromPath<Task>(ctx, req, TASKS, 'Task');
  return ok({ success: true, api_version: API_VERSION, type: typeName(req.resource), data: [taskView(ctx, task, language)], task_statuses: statusBlock(ctx, 'task', language) });
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  if (!ctx.store.delete(TASKS, id)) fail(404, 'Not found', `Task ${id} does not exist`);
  return ok({ success: true, api_version: API_VERSION, type: typeName(req.resource), deleted_id: id, deleted: [id] });
};

/** The sandbox handler of project_tasks (registered in handlers/index.ts). */
export const projectTasksHandler: ResourceHandler = {
  export: exportList,
  exportOne,
  create,
  update,
  delete: deleteOne,
};
