/**
 * The fields a pull pipeline's mapping writes into its sink, read from the mapping file as written
 * (names, `type:`, a date's `output_format`, `each:` lists of child rows), for `doctor` to hold
 * against the sink's tables. Only what the file says plainly: a field made by an expression has no
 * type here, and a file that does not read as expected gives no fields (checked at the first run).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import type { PipelineConfig } from '../config/index.js';
import type { MappedField } from '../erp/index.js';
import { FOLLOW_CHANGES_FIELD } from '../follow/changes.js';
import { resolveMappingPath } from './runtime.js';

const ruleSchema: z.ZodType<{ type?: string; output_format?: string; each?: unknown; fields?: Record<string, unknown> }> = z.looseObject({
  type: z.string().optional(),
  output_format: z.string().optional(),
  each: z.unknown().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
});

function fieldsOf(fields: Record<string, unknown>): MappedField[] {
  return Object.entries(fields).map(([name, rule]) => {
    const parsed = ruleSchema.safeParse(rule);
    if (typeof rule === 'string' || !parsed.success) return { name };
    const r = parsed.data;
    if (r.each !== undefined && r.fields !== undefined) return { name, fields: fieldsOf(r.fields) };
    const length = (r.type === 'datetime' || r.type === 'date') && r.output_format !== undefined ? r.output_format.length : undefined;
    return { name, ...(r.type !== undefined ? { type: r.type } : {}), ...(length !== undefined ? { length } : {}) };
  });
}

/** The fields of a pull pipeline's mapping, or undefined when the file does not say them plainly. */
export async function sinkFields(baseDir: string, p: PipelineConfig): Promise<MappedField[] | undefined> {
  if (p.direction !== 'pull') return undefined;
  const doc = parse(await readFile(resolveMappingPath(p.mapping, baseDir), 'utf8')) as unknown;
  const fields = z.object({ fields: z.record(z.string(), z.unknown()) }).safeParse(doc);
  if (!fields.success) return undefined;
  // A list of the follow's changes exists only when the pipeline follows (`follow:`); without, it is never written.
  const written = p.follow ? fields.data.fields : Object.fromEntries(Object.entries(fields.data.fields).filter(([, rule]) => !isChangesList(rule)));
  return fieldsOf(written);
}

function isChangesList(rule: unknown): boolean {
  return rule !== null && typeof rule === 'object' && (rule as { each?: unknown }).each === FOLLOW_CHANGES_FIELD;
}
