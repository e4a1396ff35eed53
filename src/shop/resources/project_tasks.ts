/** Project tasks (spec: Resources › Projects and project tasks; Endpoints › Projects and tasks). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { date, decimal, decimalOut, id, positiveId } from '../schema/common.js';

const taskWrite = z
  .strictObject({
    task_id: positiveId,
    project_id: positiveId,
    name: z.string().min(1),
    priority: z.number().int().min(1, { message: 'priority is 1 to 5' }).max(5, { message: 'priority is 1 to 5' }),
    progress_percent: z.number().int().min(0, { message: 'progress_percent is 0 to 100' }).max(100, { message: 'progress_percent is 0 to 100' }),
    date_start: date.nullable(),
    due_date: date.nullable(),
    hours_planned: decimal,
    hours_actual: decimal.nullable(),
    status_id: positiveId,
    assigned_admin_ids: z.array(positiveId),
    admin_id: id,
    status_comment: z.string(),
  })
  .partial();

const taskRecord = z.looseObject({
  task_id: z.number(),
  project_id: z.number(),
  name: z.string(),
  priority: z.number().optional(),
  progress_percent: z.number().optional(),
  hours_planned: decimalOut.nullable().optional(),
  hours_actual: decimalOut.nullable().optional(),
  status_id: z.number().optional(),
  assigned_admin_ids: z.array(z.number()).optional(),
  status_history: z.array(z.looseObject({ progress_percent: z.number().nullable().optional() })).optional(),
  last_modified: z.string().optional(),
});

export const project_tasks = {
  name: 'project_tasks',
  label: 'Project tasks',
  since: '2.35.0',
  key: { id: 'task_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/project_tasks',
      scope: 'project_tasks:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        project_id: { type: 'int', field: 'project_id' },
        status: { type: 'int', field: 'status_id' },
        priority: { type: 'int', min: 1, max: 5, field: 'priority' },
        admin_id: { type: 'int', field: 'assigned_admin_ids' },
        customer_id: { type: 'int', note: "the project's customers" },
        category_id: { type: 'int', note: "the project's categories" },
        due_from: { type: 'date', field: 'due_date' },
        due_to: { type: 'date', field: 'due_date' },
        progress_min: { type: 'int', min: 0, max: 100, field: 'progress_percent' },
        progress_max: { type: 'int', min: 0, max: 100, field: 'progress_percent' },
        last_modified: { type: 'timestamp', field: 'last_modified', note: 'changed at or after' },
        language: { type: 'enum', values: ['de', 'en'], note: 'language of status names' },
      },
      delta: { param: 'last_modified', granularity: 'timestamp', recordField: 'last_modified', sees: 'changed' },
    },
    exportOne: { method: 'GET', path: '/export/json/project_task/{id}', scope: 'project_tasks:read' },
    create: { method: 'POST', path: '/import/json/project_tasks', scope: 'project_tasks:write' },
    update: { method: 'PUT', path: '/import/json/project_tasks', scope: 'project_tasks:write' },
    delete: { method: 'DELETE', path: '/delete/json/project_task/{id}', scope: 'project_tasks:delete', idIn: 'path', param: 'task_id' },
  },
  lists: {
    assigned_admin_ids: { semantics: { kind: 'replace' }, specified: true, note: 'replaced only when the key is present' },
    status_history: { semantics: { kind: 'export-only' }, specified: true, note: 'appended on status change or status_comment, with progress_percent' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: ['hours_planned', 'hours_actual'],
  // Hours; the spec shows no scale (docs/spec-gaps.md "Decimal scales").
  decimalScales: { hours_planned: 2, hours_actual: 2 },
  schemas: { record: taskRecord, write: taskWrite },
} as const satisfies ResourceDef;
