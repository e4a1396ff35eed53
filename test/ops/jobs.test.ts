import { describe, expect, it } from 'vitest';
import { pipelineEntrySchema } from '../../src/config/pipelines.js';
import { jobOf, scheduledJobs } from '../../src/ops/daemon.js';

// The daemon schedules a pipeline's syncs, its complete reads and its reconciliations as jobs of their own.
describe('scheduled jobs of a pipeline', () => {
  const products = pipelineEntrySchema.parse({
    name: 'products', direction: 'push', resource: 'products', mapping: 'products.yaml', source: { connection: 'erp' },
    schedule: '*/5 * * * *', timezone: 'Europe/Berlin', completeSchedule: '0 2 * * *', options: { onMissing: 'deactivate' }, reconcile: { schedule: '0 3 * * 0', alertAbove: 10 },
  });
  const stock = pipelineEntrySchema.parse({ name: 'stock', direction: 'push', resource: 'products', mapping: 'stock.yaml', source: { connection: 'erp' }, schedule: '* * * * *' });

  it('adds <name>#complete and <name>#reconcile beside the sync, in the pipeline zone', () => {
    expect(scheduledJobs([products, stock])).toEqual([
      { name: 'products', schedule: '*/5 * * * *', timezone: 'Europe/Berlin' },
      { name: 'products#complete', schedule: '0 2 * * *', timezone: 'Europe/Berlin' },
      { name: 'products#reconcile', schedule: '0 3 * * 0', timezone: 'Europe/Berlin' },
      { name: 'stock', schedule: '* * * * *' },
    ]);
    expect(jobOf('products#reconcile')).toEqual({ pipeline: 'products', kind: 'reconcile' });
    expect(jobOf('products#complete')).toEqual({ pipeline: 'products', kind: 'complete' });
    expect(jobOf('products')).toEqual({ pipeline: 'products', kind: 'sync' });
  });

  it('refuses a bad reconcile schedule, onMissing on a pull, and deactivate where the registry has no status field', () => {
    expect(pipelineEntrySchema.safeParse({ ...products, reconcile: { schedule: 'weekly' } }).success).toBe(false);
    const pull = pipelineEntrySchema.safeParse({ name: 'o', direction: 'pull', resource: 'orders', mapping: 'o.yaml', sink: { connection: 'erp' }, options: { onMissing: 'delete' } });
    expect(pull.success).toBe(false);
    const manufacturers = pipelineEntrySchema.safeParse({ name: 'm', direction: 'push', resource: 'manufacturers', mapping: 'm.yaml', source: { connection: 'erp' }, options: { onMissing: 'deactivate' } });
    expect(manufacturers.error?.issues[0]?.message).toContain('no status field to deactivate them by');
  });
});
