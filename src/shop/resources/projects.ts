/** Projects (spec: Resources › Projects and project tasks; Endpoints › Projects and tasks). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { date, id, positiveId, strictBoolean } from '../schema/common.js';

/** One language version of a project; merged per language_id on PUT. */
export const projectDescriptionWrite = z.strictObject({
  language_id: positiveId,
  project_name: z.string().optional(),
  project_description: z.string().optional(),
});

export const projectRelationshipWrite = z.strictObject({ target_type: z.string().min(1), target_id: positiveId });

const projectWrite = z
  .strictObject({
    project_id: positiveId,
    name: z.string().min(1),
    description: z.string(),
    descriptions: z.array(projectDescriptionWrite),
    customer_scope: z.union([z.string(), z.number().int()]),
    customer_ids: z.array(positiveId),
    date_start: date.nullable(),
    date_end: date.nullable(),
    is_private: strictBoolean,
    leader_admin_ids: z.array(positiveId),
    category_ids: z.array(positiveId),
    relationships: z.array(projectRelationshipWrite),
    admin_id: id,
    status_id: positiveId,
    status_comment: z.string(),
  })
  .partial();

const historyEntry = z.looseObject({ comments: z.string().nullable().optional(), status_name: z.string().optional(), user_name: z.string().optional() });

const projectRecord = z.looseObject({
  project_id: z.number(),
  name: z.string(),
  status_id: z.number().optional(),
  is_private: z.union([z.boolean(), z.number()]).optional(),
  descriptions: z.array(z.looseObject({ language_id: z.number() })).optional(),
  leader_admin_ids: z.array(z.number()).optional(),
  relationships: z.array(z.looseObject({ target_type: z.string(), target_id: z.number() })).optional(),
  status_history: z.array(historyEntry).optional(),
  last_modified: z.string().optional(),
  tasks: z.array(z.looseObject({ task_id: z.number() })).optional(),
});

export const projects = {
  name: 'projects',
  label: 'Projects',
  since: '2.35.0',
  key: { id: 'project_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/projects',
      scope: 'projects:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        status: { type: 'int', field: 'status_id' },
        customer_id: { type: 'int', field: 'customer_ids' },
        category_id: { type: 'int', field: 'category_ids' },
        leader_admin_id: { type: 'int', field: 'leader_admin_ids' },
        is_private: { type: 'flag', values: [0, 1], field: 'is_private' },
        date_from: { type: 'date', field: 'date_created', note: 'created on or after' },
        date_to: { type: 'date', field: 'date_created', note: 'created on or before' },
        last_modified: { type: 'timestamp', field: 'last_modified', note: 'changed at or after' },
        include_tasks: { type: 'flag', values: [0, 1], note: '1 = tasks embedded' },
        language: { type: 'enum', values: ['de', 'en'], note: 'language of status and category names' },
      },
      delta: { param: 'last_modified', granularity: 'timestamp', recordField: 'last_modified', sees: 'changed' },
    },
    exportOne: { method: 'GET', path: '/export/json/project/{id}', scope: 'projects:read' },
    create: { method: 'POST', path: '/import/json/projects', scope: 'projects:write' },
    update: { method: 'PUT', path: '/import/json/projects', scope: 'projects:write' },
    delete: { method: 'DELETE', path: '/delete/json/project/{id}', scope: 'projects:delete', idIn: 'path', param: 'project_id' },
  },
  lists: {
    descriptions: { semantics: { kind: 'merge-language' }, specified: true, note: 'per language_id, only sent languages and fields are overwritten' },
    leader_admin_ids: { semantics: { kind: 'replace' }, specified: true, note: 'replaced only when the key is present' },
    relationships: { semantics: { kind: 'replace' }, specified: true, note: 'replaced only when the key is present' },
    customer_ids: { semantics: { kind: 'replace' }, specified: false },
    category_ids: { semantics: { kind: 'replace' }, specified: false },
    status_history: { semantics: { kind: 'export-only' }, specified: true, note: 'appended on status change or status_comment' },
  },
  strictBooleans: ['is_private'],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: projectRecord, write: projectWrite },
} as const satisfies ResourceDef;
