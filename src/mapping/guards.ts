/**
 * Guard rails: checks on the finished payload against the traps of the Shop Administration API,
 * where the shop would accept a request and silently lose data. They are driven by the registry
 * (`lists`, `strictBooleans`, `lengthLimits`, `decimalFields`); the few rules that concern one
 * resource's own fields (orders, storages, suppliers) name that resource explicitly.
 */
import { GuardRailError, type MappingError } from '../errors.js';
import { exceedsBytes, formatBytes, MiB } from '../util/bytes.js';
import { missingOnCreate, type ResourceDef } from '../shop/registry/index.js';
import { isPointDecimal } from '../shop/schema/patterns.js';
import { describe } from './coerce.js';
import { formatPath, normalisePath } from './paths.js';
import type { RuleMeta } from './env.js';
import type { Finding } from './types.js';

/** Fields the shop ignores although they look right, with what to use instead. */
export const IGNORED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  newsdesk: { newsdesk_categories_id: 'the shop ignores `newsdesk_categories_id` and would create the article without category; use `categories_ids` (a list of ids)' },
  sliders: {
    categories_id: 'shops from 4.8 ignore `categories_id` on sliders; use `entity_type: category` with `entity_id`',
    content_id: 'shops from 4.8 ignore `content_id` on sliders; use `entity_type: content` with `entity_id`',
  },
};

/** What the guard rails know about the mapping, besides the registry. */
export interface GuardOptions {
  readonly resource: ResourceDef;
  readonly operation: 'upsert' | 'create' | 'update';
  readonly historyIdentity?: readonly string[];
  /** The mapping's `allow:` words. */
  readonly allow?: readonly string[];
  /** Top-level list fields whose rule declares `empty: clear`. */
  readonly clearable: ReadonlySet<string>;
  /** `storages` rule declared `existing_rows_only: true`. */
  readonly storageRowsExist: boolean;
  /** Rule metadata by normalised target path, to name the rule in messages. */
  readonly rules: ReadonlyMap<string, RuleMeta>;
  readonly file: string;
  /**
   * Top-level fields the mapping can write (the first part of each rule's target). Checks of
   * fields outside it are left out: they could never fire. Undefined: every check is kept.
   */
  readonly targets?: ReadonlySet<string>;
  /** Largest text (UTF-8 bytes) one field may carry to the shop (`shop.maxFieldBytes`). @default DEFAULT_MAX_FIELD_BYTES */
  readonly maxFieldBytes?: number;
}

/**
 * 1 MiB: far above any text the shop keeps in one field (names, descriptions, notes), far below
 * what fills a request and the state with one record (a 50 MB `Name` went to the shop whole).
 */
export const DEFAULT_MAX_FIELD_BYTES = 1 * MiB;

/** Called for each present value at a registry path, with the concrete path as parts (`['storages', 0, 'x']`). */
type Visit = (value: unknown, parts: readonly (string | number)[], errors: MappingError[]) => void;

interface Segment {
  readonly key: string;
  readonly list: boolean;
  readonly star: boolean;
}

/** A registry path (`storages[].products_storage_text`, `languages.*.seo`) split once into segments. */
export function parseRegistryPath(path: string): readonly Segment[] {
  return path.split('.').map((raw) => {
    const list = raw.endsWith('[]');
    const key = list ? raw.slice(0, -2) : raw;
    return { key, list, star: key === '*' };
  });
}

// Module-level recursion with one shared parts array: guards run for every record, so walking
// a payload allocates nothing unless a value fails.
function walkFrom(segs: readonly Segment[], node: unknown, i: number, parts: (string | number)[], visit: Visit, errors: MappingError[]): void {
  if (i === segs.length) {
    if (node !== undefined) visit(node, parts, errors);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const seg = segs[i];
  const obj = node as Record<string, unknown>;
  if (seg.star) {
    for (const k of keysOf(obj)) {
      parts.push(k);
      descend(segs, obj[k], i, seg.list, parts, visit, errors);
      parts.pop();
    }
  } else {
    parts.push(seg.key);
    descend(segs, obj[seg.key], i, seg.list, parts, visit, errors);
    parts.pop();
  }
}

function descend(segs: readonly Segment[], child: unknown, i: number, list: boolean, parts: (string | number)[], visit: Visit, errors: MappingError[]): void {
  if (!list) return walkFrom(segs, child, i + 1, parts, visit, errors);
  if (!Array.isArray(child)) return;
  for (let n = 0; n < child.length; n++) {
    parts.push(n);
    walkFrom(segs, child[n], i + 1, parts, visit, errors);
    parts.pop();
  }
}

/** Visit every present value at a parsed registry path of a payload. */
export function walk(root: unknown, segs: readonly Segment[], visit: Visit, errors: MappingError[]): void {
  // One parts array for every walk: visits read it at once (to name the field) and keep nothing.
  // A walk pops what it pushed, so it is empty here; setting the length of an empty array to 0
  // anyway gave up its backing store, and the next push allocated one again (a tenth of a push's allocations).
  if (walkParts.length !== 0) walkParts.length = 0;
  walkFrom(segs, root, 0, walkParts, visit, errors);
}

const walkParts: (string | number)[] = [];

/**
 * The keys of an object a starred path walks: a product's twenty-odd `languages.*.…` paths walk
 * one `languages` object after another, so its keys are listed once, not once per path (a key list
 * per path and payload was a twelfth of a push's allocations). Forgotten when a payload's check
 * begins (`forgetWalkedKeys`): an object is never changed while its payload is checked.
 */
function keysOf(obj: Record<string, unknown>): readonly string[] {
  if (obj !== keyedObject) {
    keyedObject = obj;
    keyedKeys = Object.keys(obj);
  }
  return keyedKeys;
}

let keyedObject: object | undefined;
let keyedKeys: readonly string[] = [];

/** Forget the keys `keysOf` listed (a payload's check begins). */
function forgetWalkedKeys(): void {
  keyedObject = undefined;
  keyedKeys = [];
}

/**
 * A registry path and its check as one function of the payload. Most of a resource's paths are
 * absent from a given payload: a top-level field is one property read, and a deeper path is walked
 * only when its first field is there.
 */
function compileVisit(path: string, visit: Visit): (payload: Record<string, unknown>, errors: MappingError[]) => void {
  const segs = parseRegistryPath(path);
  const first = segs[0];
  if (segs.length === 1 && !first.list && !first.star) {
    // Visits only read the parts (to name the field in a message): one array serves every payload.
    const parts = [first.key];
    return (payload, errors) => {
      const v = payload[first.key];
      if (v !== undefined) visit(v, parts, errors);
    };
  }
  if (first.star) return (payload, errors) => walk(payload, segs, visit, errors);
  return (payload, errors) => {
    if (payload[first.key] !== undefined) walk(payload, segs, visit, errors);
  };
}


/** Compile the guard rails of one erp→shop mapping into a check of finished payloads. */
export function compileGuards(opts: GuardOptions): (payload: Record<string, unknown>, errors: MappingError[], warnings: Finding[]) => void {
  const r = opts.resource;
  const metaFor = (field: string): RuleMeta | undefined => {
    let key = normalisePath(field);
    for (;;) {
      const m = opts.rules.get(key);
      if (m) return m;
      const cut = Math.max(key.lastIndexOf('.'), key.lastIndexOf('['));
      if (cut <= 0) return undefined;
      key = key.slice(0, cut);
    }
  };
  const fail = (errors: MappingError[], code: string, field: string, value: unknown, message: string) => {
    const meta = metaFor(field);
    const where = meta ? ` (rule \`${meta.text}\` at ${opts.file}:${meta.line})` : '';
    errors.push(new GuardRailError(code, `field \`${field}\`: ${message}${where}`, { file: opts.file, line: meta?.line, column: meta?.column, field, sourceValue: value, rule: meta?.text }));
  };
  const writable = (field: string) => opts.targets === undefined || opts.targets.has(field);
  const replaceLists = Object.entries(r.lists).filter(([f, d]) => d.semantics.kind === 'replace' && writable(f)).map(([f]) => f);
  const flagLists = Object.entries(r.lists).flatMap(([f, d]) =>
    d.semantics.kind === 'upsert' && d.semantics.replaceFlag && writable(d.semantics.replaceFlag) ? [{ field: f, flag: d.semantics.replaceFlag, defaults: Object.entries(d.semantics.insertDefaults ?? {}), deleteAction: d.semantics.deleteAction }] : [],
  );
  const histories = Object.entries(r.lists).flatMap(([f, d]) => (d.semantics.kind === 'append-only' && writable(f) ? [f] : []));
  const ignored = Object.entries(IGNORED_FIELDS[r.name] ?? {}).filter(([f]) => writable(f));
  const creates = opts.operation !== 'update';
  const checkBoolean: Visit = (v, parts, errors) => {
    if (typeof v !== 'boolean') fail(errors, 'GUARD_NOT_BOOLEAN', formatPath(parts), v, `must be a JSON boolean true/false, got ${describe(v)}; the shop treats 'true' and 1 as not set (use \`type: boolean\`)`);
  };
  const checkDecimal: Visit = (v, parts, errors) => {
    if (v === null || typeof v === 'number' || (typeof v === 'string' && isPointDecimal(v))) return;
    const code = typeof v === 'string' && /\d[,.]\d/.test(v) ? 'GUARD_AMBIGUOUS_DECIMAL' : 'GUARD_DECIMAL';
    fail(errors, code, formatPath(parts), v, `a decimal must leave in point notation, got ${describe(v)}; the shop would read '50,5' as 50 (use \`type: decimal\` with a \`locale\`)`);
  };
  const limits = r.lengthLimits.map((limit) => {
    const code = limit.path.endsWith('products_storage_text') ? 'GUARD_STORAGE_TEXT_LENGTH' : 'GUARD_LENGTH';
    const check: Visit = (v, parts, errors) => {
      if (typeof v !== 'string' || v.length <= limit.max || [...v].length <= limit.max) return;
      const n = [...v].length;
      fail(errors, code, formatPath(parts), v, `${n} characters, the shop takes at most ${limit.max} (${limit.shop === 'truncate' ? 'it would cut the rest silently' : 'it would drop or reject the value'}); shorten it in the ERP or declare \`truncate: ${limit.max}\``);
    };
    return { path: limit.path, check };
  });
  // In registry order (booleans, decimals, lengths), so errors come out in the order they always did.
  const valueChecks = [
    ...r.strictBooleans.map((p) => ({ path: p, check: checkBoolean })),
    ...r.decimalFields.map((p) => ({ path: p, check: checkDecimal })),
    ...limits,
  ]
    .filter(({ path }) => {
      const first = parseRegistryPath(path)[0];
      return first.star || writable(first.key);
    })
    .map(({ path, check }) => compileVisit(path, check));
  const createRules = creates && (r.requiredOnCreate?.length ?? 0) > 0;
  const hasStorages = r.name === 'products' && 'storages' in r.lists;
  const hasSuppliers = r.name === 'products' && 'suppliers' in r.lists;

  const maxFieldBytes = opts.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  // Every text of the payload, however deep: one walk per record, allocating only for a value that fails.
  const sizeParts: (string | number)[] = [];
  const checkSizes = (node: unknown, errors: MappingError[]): void => {
    if (typeof node === 'string') {
      if (!exceedsBytes(node, maxFieldBytes)) return;
      const bytes = Buffer.byteLength(node, 'utf8');
      const excerpt = `${node.slice(0, 40)}…(${bytes} bytes)`;
      fail(errors, 'GUARD_FIELD_TOO_LARGE', formatPath(sizeParts), excerpt, `${formatBytes(bytes)} (${bytes} bytes), more than the ${formatBytes(maxFieldBytes)} a field may carry to the shop; shorten it in the ERP, or raise shop.maxFieldBytes if the shop should take such values`);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (let n = 0; n < node.length; n++) {
        sizeParts.push(n);
        checkSizes(node[n], errors);
        sizeParts.pop();
      }
      return;
    }
    for (const key of Object.keys(node)) {
      sizeParts.push(key);
      checkSizes((node as Record<string, unknown>)[key], errors);
      sizeParts.pop();
    }
  };

  return (payload, errors, warnings) => {
    forgetWalkedKeys();
    checkSizes(payload, errors);
    for (const f of replaceLists) {
      const v = payload[f];
      if (Array.isArray(v) && v.length === 0 && !opts.clearable.has(f)) {
        fail(errors, 'GUARD_EMPTY_REPLACE_LIST', f, v, `an empty list replaces (clears) the shop's \`${f}\`; declare \`empty: clear\` on the rule if that is meant`);
      }
    }
    for (const { field: f, flag, defaults, deleteAction } of flagLists) {
      const v = payload[f];
      if (payload[flag] !== true) continue;
      if ((!Array.isArray(v) || v.length === 0) && !opts.clearable.has(f)) {
        fail(errors, 'GUARD_EMPTY_REPLACE_LIST', f, v, `\`${flag}: true\` with no \`${f}\` entries deletes all of them; declare \`empty: clear\` on the rule if that is meant`);
      }
      if (!Array.isArray(v)) continue;
      // Under the replace flag every entry is inserted anew: one lacking its value (an empty price cell) silently takes the shop's default.
      for (let n = 0; n < v.length; n++) {
        const entry = v[n] as Record<string, unknown> | null;
        if (entry === null || typeof entry !== 'object' || (deleteAction && entry[deleteAction.field] === deleteAction.value)) continue;
        for (const [field, fallback] of defaults) {
          const value = entry[field];
          // The shop ignores a value <= 0 (with a warning) and keeps the insert default just the same.
          if (value === undefined || value === null || value === '' || Number(value) <= 0) {
            fail(errors, 'GUARD_REPLACE_ENTRY_DEFAULT', `${f}[${n}].${field}`, value, `\`${flag}: true\` deletes the stored entries first, and an entry without a \`${field}\` above 0 is inserted with ${fallback}: the stored value would be lost`);
          }
        }
      }
    }
    for (const check of valueChecks) check(payload, errors);
    for (const [field, hint] of ignored) {
      if (field in payload) fail(errors, 'GUARD_IGNORED_FIELD', field, payload[field], hint);
    }
    for (const f of histories) {
      const list = payload[f];
      if (!Array.isArray(list) || list.length === 0) continue;
      if (!opts.historyIdentity) {
        fail(errors, 'GUARD_HISTORY_IDENTITY', f, list, `\`${f}\` is append-only (every entry sent is appended again); declare \`history_identity: [...]\` so each entry is sent once`);
        continue;
      }
      for (let n = 0; n < list.length; n++) {
        const entry = list[n] as Record<string, unknown> | null;
        const missing = opts.historyIdentity.filter((k) => entry?.[k] === undefined || entry?.[k] === null || entry?.[k] === '');
        if (missing.length > 0) fail(errors, 'GUARD_HISTORY_IDENTITY', `${f}[${n}]`, entry, `entry lacks its identity field(s) ${missing.join(', ')}; without them it cannot be sent exactly once`);
      }
    }
    if (createRules) {
      for (const rule of missingOnCreate(r, payload, opts.allow)) {
        // An upsert may be an update: a rule a mapping may waive is decided when the pipeline knows it creates.
        if (rule.allowedBy !== undefined && opts.operation !== 'create') continue;
        fail(errors, rule.guard, rule.field, payload[rule.field], rule.why);
      }
    }
    if (hasStorages && Array.isArray(payload.storages)) {
      for (let n = 0; n < payload.storages.length; n++) {
        const row = payload.storages[n] as Record<string, unknown>;
        const at = `storages[${n}]`;
        const id = row.storages_id ?? row.warehouse_id;
        if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) {
          fail(errors, 'GUARD_STORAGE_ROW', `${at}.storages_id`, id, 'a storage row needs `storages_id` > 0; the shop skips it without any warning (the main warehouse is the top-level products_quantity)');
          continue;
        }
        const hasQty = row.products_quantity !== undefined;
        const hasSafe = row.products_safe_quantity !== undefined;
        if (!opts.storageRowsExist && (!hasQty || !hasSafe)) {
          fail(errors, 'GUARD_STORAGE_ROW', at, row, 'a new storage row must carry products_quantity and products_safe_quantity, or the database may drop it without an error; declare `existing_rows_only: true` on the rule if the rows exist');
        } else if (Object.keys(row).every((k) => k === 'storages_id' || k === 'warehouse_id' || k === 'options_id')) {
          warnings.push({ code: 'GUARD_STORAGE_ROW', field: at, message: 'a storage row with only its key writes nothing' });
        }
      }
    }
    if (hasSuppliers && Array.isArray(payload.suppliers)) {
      for (let n = 0; n < payload.suppliers.length; n++) {
        const model = (payload.suppliers[n] as Record<string, unknown> | null)?.products_model;
        if (typeof model !== 'string' || model.trim() === '') {
          fail(errors, 'GUARD_SUPPLIER_WITHOUT_NUMBER', `suppliers[${n}].products_model`, model, "a supplier entry without products_model erases the supplier's article number stored in the shop");
        }
      }
    }
  };
}
