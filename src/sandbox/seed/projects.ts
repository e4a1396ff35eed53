/** Demo projects with tasks: a shop relaunch (active, with history) and a private ERP migration. */
import type { SandboxContext } from '../handler.js';
import { formatDateTime } from '../dates.js';

function daysAgo(ctx: SandboxContext, days: number): string {
  return formatDateTime(new Date(ctx.now().getTime() - days * 86_400_000));
}

/** Load the demo projects and their tasks. */
export function seedProjects(ctx: SandboxContext): void {
  const created = daysAgo(ctx, 20);
  ctx.store.put('projects', 1, {
    project_id: 1,
    name: 'Shop relaunch',
    description: '<p>Neues Theme und schnellere Produktseiten.</p>',
    descriptions: [
      { language_id: 1, project_name: 'Shop relaunch', project_description: '<p>New theme and faster product pages.</p>' },
      { language_id: 2, project_name: 'Shop-Relaunch', project_description: '<p>Neues Theme und schnellere Produktseiten.</p>' },
    ],
    customer_scope: 'internal',
    customer_ids: [],
    date_start: created.slice(0, 10),
    date_end: null,
    is_private: false,
    leader_admin_ids: [1],
    category_ids: [1],
    relationships: [{ target_type: 'ticket', target_id: 4 }],
    status_id: 2,
    status_history: [
      { id: 1, status_id: 1, comments: 'Project planned', progress_percent: null, user_id: 1, date_added: created },
      { id: 2, status_id: 2, comments: 'Kick-off done', progress_percent: null, user_id: 1, date_added: daysAgo(ctx, 14) },
    ],
    created_by: 1,
    modified_by: 1,
    date_created: created,
    last_modified: daysAgo(ctx, 14),
  });
  ctx.store.put('projects', 2, {
    project_id: 2,
    name: 'ERP migration',
    description: '<p>Artikelstamm und Bestände aus dem ERP synchronisieren.</p>',
    descriptions: [{ language_id: 2, project_name: 'ERP-Migration', project_description: '<p>Artikelstamm und Bestände aus dem ERP synchronisieren.</p>' }],
    customer_scope: 'customer',
    customer_ids: [1],
    date_start: daysAgo(ctx, 5).slice(0, 10),
    date_end: null,
    is_private: true,
    leader_admin_ids: [2],
    category_ids: [2],
    relationships: [],
    status_id: 1,
    status_history: [{ id: 1, status_id: 1, comments: '', progress_percent: null, user_id: 2, date_added: daysAgo(ctx, 5) }],
    created_by: 2,
    modified_by: 2,
    date_created: daysAgo(ctx, 5),
    last_modified: daysAgo(ctx, 5),
  });
  const task = (id: number, projectId: number, name: string, priority: number, progress: number, statusId: number, due: number, admins: number[], planned: number, actual: number | null) => {
    ctx.store.put('project_tasks', id, {
      task_id: id, project_id: projectId, name, priority, progress_percent: progress, date_start: daysAgo(ctx, 14).slice(0, 10), due_date: daysAgo(ctx, -due).slice(0, 10),
      hours_planned: planned, hours_actual: actual, status_id: statusId, assigned_admin_ids: admins,
      status_history: [{ id: 1, status_id: statusId, comments: '', progress_percent: progress, user_id: admins[0] ?? 0, date_added: daysAgo(ctx, 14) }],
      created_by: 1, modified_by: 1, date_created: daysAgo(ctx, 14), last_modified: daysAgo(ctx, 2),
    });
  };
  task(1, 1, 'Theme mock-ups', 2, 100, 4, -3, [3], 16, 14.5);
  task(2, 1, 'Product page performance', 4, 40, 2, 7, [1, 3], 24, 9.25);
  task(3, 1, 'Redirect old URLs', 3, 0, 1, 14, [2], 6, null);
  task(4, 2, 'Map ERP article fields', 5, 10, 2, 3, [2], 8, 1);
}
