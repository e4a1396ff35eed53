/**
 * Projects and project tasks in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | project filters status, customer_id, category_id, leader_admin_id, is_private, date_from/to, last_modified, include_tasks | l.595 |
 * | task filters project_id, status, priority, admin_id, customer_id, category_id, due_from/to, progress_min/max, last_modified | l.595 |
 * | `language` (de|en) names statuses; meta blocks project_statuses[] and task_statuses[] | l.595 |
 * | admin_id is the actor: created_by/modified_by and user_id in the history (absent = 0) | l.597 |
 * | descriptions[] merged per language on PUT; leader_admin_ids/relationships/assigned_admin_ids replaced only when present | l.597 |
 * | POST with a used id: 409 Already exists (when the request fails as a whole); PUT with an unknown id: Not found | l.597, l.696-697 |
 * | status history on a status change and on a comment alone; tasks store progress | l.344, l.286-288 |
 * | due_from/due_to on the date-only due_date include the boundary day (shared filter code) | l.595 |
 * | int filters outside the registry's min/max (priority 1..5, progress 0..100) answer 400 naming the parameter | l.595 |
 * | project delete cascades to tasks, detaches tickets/orders, answers deleted_tasks; task delete keeps the project | l.586, l.591, l.597 |
 */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/shop/errors.js';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

type Rec = Record<string, any>;

const projectIds = async (filters: Record<string, string | number>) => (await collect(fx().client.exportAll('projects', { filters }))).map((p) => p.project_id);
const taskIds = async (filters: Record<string, string | number>) => (await collect(fx().client.exportAll('project_tasks', { filters }))).map((t) => t.task_id);

describe('project export', () => {
  it('filters by status, customer, category, leader, privacy and dates', async () => {
    expect(await projectIds({ status: 2 })).toEqual([1]);
    expect(await projectIds({ customer_id: 1 })).toEqual([2]);
    expect(await projectIds({ category_id: 1 })).toEqual([1]);
    expect(await projectIds({ leader_admin_id: 2 })).toEqual([2]);
    expect(await projectIds({ is_private: 1 })).toEqual([2]);
    expect(await projectIds({ is_private: 0 })).toEqual([1]);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    expect(await projectIds({ date_from: day(10) })).toEqual([2]);
    expect(await projectIds({ date_to: day(10) })).toEqual([1]);
  });

  it('sees changes through last_modified as a timestamp', async () => {
    const before = (await fx().http.get('/sandbox/clock')).data.now as string;
    await fx().advanceClock(5);
    await fx().client.update('projects', [{ project_id: 2, name: 'ERP migration (phase 1)' }]);
    expect(await projectIds({ last_modified: before })).toEqual([2]);
  });

  it('embeds tasks with include_tasks=1, names statuses per language and lists the status meta blocks', async () => {
    const de = await fx().http.get('/export/json/projects', { params: { include_tasks: 1 } });
    expect(de.data.data[0].tasks.map((t: Rec) => t.task_id)).toEqual([1, 2, 3]);
    expect(de.data.data[0].status_name).toBe('Aktiv');
    expect(de.data.project_statuses.map((s: Rec) => s.name)).toEqual(['Geplant', 'Aktiv', 'Pausiert', 'Erledigt']);
    expect(de.data.task_statuses.map((s: Rec) => s.id)).toEqual([1, 2, 3, 4]);
    const en = await fx().http.get('/export/json/project/1', { params: { language: 'en' } });
    expect(en.data.data[0]).toMatchObject({ status_name: 'Active' });
    expect(en.data.data[0].status_history.map((h: Rec) => [h.status_name, h.user_name])).toEqual([['Planned', 'Anna Admin'], ['Active', 'Anna Admin']]);
    expect(en.data.project_statuses[0]).toMatchObject({ id: 1, name: 'Planned' });
    const plain = await fx().http.get('/export/json/projects');
    expect(plain.data.data[0]).not.toHaveProperty('tasks');
    const one = await fx().http.get('/export/json/project/2', { params: { include_tasks: 1 } });
    expect(one.data.data[0].tasks.map((t: Rec) => t.task_id)).toEqual([4]);
    expect(en.data.data[0]).not.toHaveProperty('tasks');
  });
});

describe('project writes', () => {
  it('records the acting admin as creator, modifier and history user (absent = 0)', async () => {
    const { outcomes } = await fx().client.create('projects', [{ name: 'Photo shoot', admin_id: 3, status_comment: 'Booked' }, { name: 'System job' }]);
    const [a, b] = await Promise.all(outcomes.map((o) => fx().client.exportOne('projects', o.data?.project_id as number))) as Rec[];
    expect(a).toMatchObject({ created_by: 3, modified_by: 3, status_id: 1 });
    expect(a.status_history[0]).toMatchObject({ user_id: 3, user_name: 'Clara Support', comments: 'Booked' });
    expect(b).toMatchObject({ created_by: 0, modified_by: 0 });
    expect(b.status_history[0]).toMatchObject({ user_id: 0, user_name: 'System' });
    await fx().client.update('projects', [{ project_id: a.project_id, admin_id: 2, date_end: '2031-01-01' }]);
    expect(await fx().client.exportOne('projects', a.project_id)).toMatchObject({ created_by: 3, modified_by: 2 });
  });

  it('merges descriptions per language and field', async () => {
    await fx().client.update('projects', [{ project_id: 1, descriptions: [{ language_id: 1, project_name: 'Shop relaunch 2026' }] }]);
    const p = (await fx().client.exportOne('projects', 1)) as Rec;
    expect(p.descriptions).toEqual([
      { language_id: 1, project_name: 'Shop relaunch 2026', project_description: '<p>New theme and faster product pages.</p>' },
      { language_id: 2, project_name: 'Shop-Relaunch', project_description: '<p>Neues Theme und schnellere Produktseiten.</p>' },
    ]);
  });

  it('replaces leader_admin_ids and relationships only when present', async () => {
    await fx().client.update('projects', [{ project_id: 1, name: 'Shop relaunch' }]);
    let p = (await fx().client.exportOne('projects', 1)) as Rec;
    expect(p.leader_admin_ids).toEqual([1]);
    expect(p.relationships).toEqual([{ target_type: 'ticket', target_id: 4 }]);
    await fx().client.update('projects', [{ project_id: 1, leader_admin_ids: [2, 3], relationships: [] }]);
    p = (await fx().client.exportOne('projects', 1)) as Rec;
    expect(p.leader_admin_ids).toEqual([2, 3]);
    expect(p.relationships).toEqual([]);
  });

  it('appends history on a status change and on a comment alone, not on other edits', async () => {
    await fx().client.update('projects', [{ project_id: 2, name: 'ERP migration' }]);
    await fx().client.update('projects', [{ project_id: 2, status_id: 2, status_comment: 'Started', admin_id: 2 }]);
    await fx().client.update('projects', [{ project_id: 2, status_comment: 'Field mapping agreed', admin_id: 1 }]);
    const p = (await fx().client.exportOne('projects', 2)) as Rec;
    expect(p.status_history.map((h: Rec) => [h.status_id, h.comments, h.user_id])).toEqual([[1, '', 2], [2, 'Started', 2], [2, 'Field mapping agreed', 1]]);
    const { outcomes } = await fx().client.update('projects', [{ project_id: 2, status_id: 99 }]);
    expect(outcomes[0].error?.details?.field).toBe('status_id');
  });

  it('answers 409 Already exists on a POST of projects or tasks with a used id, and the client raises a ConflictError', async () => {
    const project = await fx().http.post('/import/json/projects', { type: 'projects', data: [{ project_id: 1, name: 'dup' }] });
    expect(project.status).toBe(409);
    expect(project.data).toMatchObject({ success: false, error: { code: 'Already exists', details: { index: 0, project_id: 1 } } });
    const task = await fx().client.create('project_tasks', [{ task_id: 1, project_id: 1, name: 'dup' }]);
    expect(task.outcomes[0].error).toBeInstanceOf(ConflictError);
    expect(task.outcomes[0].error).toMatchObject({ status: 409, code: 'ALREADY_EXISTS', apiCode: 'Already exists' });
  });

  it('answers Already exists on POST with a used id and Not found on PUT with an unknown one', async () => {
    const created = await fx().client.create('projects', [{ project_id: 1, name: 'dup' }]);
    expect(created.outcomes[0].error?.apiCode).toBe('Already exists');
    const updated = await fx().client.update('projects', [{ project_id: 404, name: 'x' }]);
    expect(updated.outcomes[0].error?.apiCode).toBe('Not found');
    const task = await fx().client.create('project_tasks', [{ task_id: 1, project_id: 1, name: 'dup' }]);
    expect(task.outcomes[0].error?.apiCode).toBe('Already exists');
    const taskUpdate = await fx().client.update('project_tasks', [{ task_id: 404, name: 'x' }]);
    expect(taskUpdate.outcomes[0].error?.apiCode).toBe('Not found');
  });

  it('deletes a project with its tasks, detaching linked tickets', async () => {
    expect((await fx().client.exportOne('tickets', 4))?.project_id).toBe(1);
    await fx().client.update('projects', [{ project_id: 1, relationships: [{ target_type: 'order', target_id: 1 }] }]);
    expect((await fx().client.exportOne('tickets', 4))?.project_id).toBeNull();
    await fx().client.update('projects', [{ project_id: 1, relationships: [{ target_type: 'ticket', target_id: 4 }, { target_type: 'order', target_id: 1 }] }]);
    expect((await fx().client.exportOne('tickets', 4))?.project_id).toBe(1);
    const answer = await fx().client.delete('projects', 1);
    expect(answer).toMatchObject({ success: true, deleted_id: 1, deleted_tasks: [1, 2, 3], detached: { tickets: [4], orders: [1] } });
    expect(await fx().client.exportOne('orders', 1)).toMatchObject({ orders_id: 1 });
    expect(await fx().client.exportOne('projects', 1)).toBeUndefined();
    expect(await taskIds({})).toEqual([4]);
    const ticket = await fx().client.exportOne('tickets', 4);
    expect(ticket).toMatchObject({ ticket_id: 4, project_id: null });
  });
});

describe('tasks', () => {
  it('filters by project, status, priority, admin, customer, category, due dates, progress', async () => {
    expect(await taskIds({ project_id: 2 })).toEqual([4]);
    expect(await taskIds({ status: 2 })).toEqual([2, 4]);
    expect(await taskIds({ priority: 5 })).toEqual([4]);
    expect(await taskIds({ admin_id: 3 })).toEqual([1, 2]);
    expect(await taskIds({ customer_id: 1 })).toEqual([4]);
    expect(await taskIds({ category_id: 1 })).toEqual([1, 2, 3]);
    expect(await taskIds({ progress_min: 40 })).toEqual([1, 2]);
    expect(await taskIds({ progress_max: 10 })).toEqual([3, 4]);
    const day = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
    expect(await taskIds({ due_from: day(3) })).toEqual([2, 3, 4]);
    expect(await taskIds({ due_to: day(3) })).toEqual([1, 4]);
    const res = await fx().http.get('/export/json/project_tasks', { params: { priority: 6 } });
    expect(res.status).toBe(400);
  });

  it('includes a task due on the boundary day in due_from and due_to', async () => {
    const { outcomes } = await fx().client.create('project_tasks', [{ project_id: 2, name: 'Boundary', due_date: '2030-06-15' }]);
    const id = outcomes[0].data?.task_id as number;
    expect(await taskIds({ due_from: '2030-06-15' })).toEqual([id]);
    expect(await taskIds({ due_from: '2030-06-15', due_to: '2030-06-15' })).toEqual([id]);
    expect(await taskIds({ due_from: '2030-06-16' })).toEqual([]);
    expect(await taskIds({ due_from: '2030-06-14', due_to: '2030-06-14' })).toEqual([]);
    await fx().client.delete('project_tasks', id);
  });

  it('answers 400 INVALID_PAYLOAD naming the parameter for int filters outside their range', async () => {
    for (const [param, value] of [['priority', 0], ['priority', 6], ['progress_min', 101], ['progress_max', -1]] as const) {
      const res = await fx().http.get('/export/json/project_tasks', { params: { [param]: value } });
      expect(res.status, `${param}=${value}`).toBe(400);
      expect(res.data.error.code).toBe('INVALID_PAYLOAD');
      expect(res.data.error.message).toContain(param);
    }
    expect((await fx().http.get('/export/json/project_tasks', { params: { progress_min: 100 } })).status).toBe(200);
  });

  it('exports hours as decimal strings and status names per language with task_statuses', async () => {
    const res = await fx().http.get('/export/json/project_task/2', { params: { language: 'en' } });
    expect(res.data.data[0]).toMatchObject({ hours_planned: '24.00', hours_actual: '9.25', status_name: 'In progress' });
    expect(res.data.task_statuses.map((s: Rec) => s.name)).toEqual(['Open', 'In progress', 'Review', 'Done']);
  });

  it('requires project_id on create, replaces assigned admins only when present, validates ranges', async () => {
    const { outcomes } = await fx().client.create('project_tasks', [
      { name: 'orphan' },
      { project_id: 99, name: 'unknown project' },
      { project_id: 2, name: 'too urgent', priority: 6 },
      { project_id: 2, name: 'Import stock', assigned_admin_ids: [1, 2], hours_planned: '3.5', admin_id: 2 },
    ]);
    expect(outcomes.map((o) => o.error?.details?.field)).toEqual(['project_id', 'project_id', 'priority', undefined]);
    const id = outcomes[3].data?.task_id as number;
    await fx().client.update('project_tasks', [{ task_id: id, name: 'Import stock levels' }]);
    expect(await fx().client.exportOne('project_tasks', id)).toMatchObject({ assigned_admin_ids: [1, 2], hours_planned: '3.50', priority: 3, progress_percent: 0 });
    await fx().client.update('project_tasks', [{ task_id: id, assigned_admin_ids: [3] }]);
    expect(await fx().client.exportOne('project_tasks', id)).toMatchObject({ assigned_admin_ids: [3] });
  });

  it('stores the progress in history entries on a status change and on a comment alone', async () => {
    await fx().client.update('project_tasks', [{ task_id: 3, progress_percent: 20 }]);
    await fx().client.update('project_tasks', [{ task_id: 3, progress_percent: 50, status_comment: 'Half the redirects done', admin_id: 2 }]);
    await fx().client.update('project_tasks', [{ task_id: 3, status_id: 4, progress_percent: 100, admin_id: 2 }]);
    const t = (await fx().client.exportOne('project_tasks', 3)) as Rec;
    expect(t.status_history.map((h: Rec) => [h.status_id, h.progress_percent, h.comments])).toEqual([[1, 0, ''], [1, 50, 'Half the redirects done'], [4, 100, '']]);
  });

  it('deletes a task and keeps its project', async () => {
    expect(await fx().client.delete('project_tasks', 4)).toMatchObject({ success: true, deleted_id: 4 });
    expect(await fx().client.exportOne('projects', 2)).toBeDefined();
    await expect(fx().client.delete('project_tasks', 4)).rejects.toMatchObject({ status: 404 });
  });
});
