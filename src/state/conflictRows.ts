/**
 * Field conflicts and sent values (issue 46) as both backends store them: JSON text for the values,
 * times in ms, the shop id as text. One place for the columns, so the SQLite statements and the
 * PostgreSQL writer's folded upsert put them in the same order.
 */
import { iso, readShopId, toMs, type ConflictResolution, type ConflictStatus, type FieldConflict, type SentValue } from './types.js';

/** The columns of `field_conflicts`, key first (pipeline, erp_key, field). */
export const CONFLICT_COLUMNS = ['pipeline', 'erp_key', 'field', 'shop', 'resource', 'shop_id', 'erp_value', 'sent_value', 'shop_value', 'status', 'resolution', 'first_seen', 'last_seen', 'resolved_at', 'run_id'] as const;

/** A row as the drivers return it (PostgreSQL BIGINT as text). */
export interface ConflictRow {
  readonly pipeline: string;
  readonly erp_key: string;
  readonly field: string;
  readonly shop: string;
  readonly resource: string;
  readonly shop_id: string | null;
  readonly erp_value: string | null;
  readonly sent_value: string | null;
  readonly shop_value: string | null;
  readonly status: string;
  readonly resolution: string | null;
  readonly first_seen: number | string;
  readonly last_seen: number | string;
  readonly resolved_at: number | string | null;
  readonly run_id: number | string | null;
}

/** JSON text of a value; undefined stays NULL (a value nobody knows). */
function json(v: unknown): string | null {
  return v === undefined ? null : JSON.stringify(v);
}

/** The values of a conflict in `CONFLICT_COLUMNS` order. */
export function conflictValues(c: FieldConflict): (string | number | null)[] {
  return [
    c.pipeline,
    c.erpKey,
    c.field,
    c.shop,
    c.resource,
    c.shopId === undefined ? null : String(c.shopId),
    // A missing ERP or shop value is stored as JSON null: only the sent value can be unknown.
    json(c.erpValue ?? null),
    json(c.sentValue),
    json(c.shopValue ?? null),
    c.status,
    c.resolution ?? null,
    toMs(c.firstSeenAt),
    toMs(c.lastSeenAt),
    c.resolvedAt === undefined ? null : toMs(c.resolvedAt),
    c.runId ?? null,
  ];
}

const STATUSES: readonly string[] = ['open', 'resolved'];
const RESOLUTIONS: readonly string[] = ['erp', 'shop', 'agreed'];

/** A stored row back to a conflict. */
export function conflictOf(r: ConflictRow): FieldConflict {
  return {
    pipeline: r.pipeline,
    shop: r.shop,
    resource: r.resource,
    erpKey: r.erp_key,
    ...(r.shop_id !== null ? { shopId: readShopId(r.shop_id) } : {}),
    field: r.field,
    erpValue: r.erp_value === null ? null : (JSON.parse(r.erp_value) as unknown),
    ...(r.sent_value !== null ? { sentValue: JSON.parse(r.sent_value) as unknown } : {}),
    shopValue: r.shop_value === null ? null : (JSON.parse(r.shop_value) as unknown),
    status: (STATUSES.includes(r.status) ? r.status : 'open') as ConflictStatus,
    ...(r.resolution !== null && RESOLUTIONS.includes(r.resolution) ? { resolution: r.resolution as ConflictResolution } : {}),
    firstSeenAt: iso(Number(r.first_seen)),
    lastSeenAt: iso(Number(r.last_seen)),
    ...(r.resolved_at !== null ? { resolvedAt: iso(Number(r.resolved_at)) } : {}),
    ...(r.run_id !== null ? { runId: Number(r.run_id) } : {}),
  };
}

/** Open conflicts grouped by ERP key. */
export function byRecord(conflicts: readonly FieldConflict[]): Map<string, FieldConflict[]> {
  const out = new Map<string, FieldConflict[]>();
  for (const c of conflicts) {
    const list = out.get(c.erpKey);
    if (list) list.push(c);
    else out.set(c.erpKey, [c]);
  }
  return out;
}

/** A row of `sent_values`. */
export interface SentValueRow {
  readonly record_key: string;
  readonly field: string;
  readonly value: string;
  readonly erp_value: string | null;
}

/** Sent values by record key, then field. */
export function sentValuesOf(rows: readonly SentValueRow[]): Map<string, Map<string, SentValue>> {
  const out = new Map<string, Map<string, SentValue>>();
  for (const r of rows) {
    let fields = out.get(r.record_key);
    if (!fields) out.set(r.record_key, (fields = new Map()));
    fields.set(r.field, { value: JSON.parse(r.value) as unknown, ...(r.erp_value !== null ? { erp: JSON.parse(r.erp_value) as unknown } : {}) });
  }
  return out;
}

/** The JSON columns of a sent value: the value, and the ERP's it stands for (NULL: the same). */
export function sentValueColumns(value: unknown, erp?: { readonly value: unknown }): [string, string | null] {
  return [JSON.stringify(value ?? null), erp === undefined ? null : JSON.stringify(erp.value ?? null)];
}

/** The ORDER BY of a conflict list: open ones first, then the latest seen. */
export const CONFLICT_ORDER = "CASE status WHEN 'open' THEN 0 ELSE 1 END, last_seen DESC, pipeline, erp_key, field";
