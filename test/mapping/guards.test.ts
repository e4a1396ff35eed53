import { describe, expect, it } from 'vitest';
import { GuardRailError, MappingError } from '../../src/errors.js';
import { compileMapping, MappingFileError, type CompiledMapping, type MappingContext, type MappingResult } from '../../src/mapping/index.js';

const ctx: MappingContext = { lookupReference: () => 42 };

function mapping(resource: string, operation: string, fields: string, head = ''): CompiledMapping {
  return compileMapping(`name: t\ndirection: erp-to-shop\ntarget: { resource: ${resource}, operation: ${operation} }\nkey: K\n${head}fields:\n${fields}`, 'guard.yaml');
}

function refusal(result: MappingResult): GuardRailError {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.payload)}`);
  const guard = result.errors.find((e) => e instanceof GuardRailError);
  if (!guard) throw new Error(`expected a guard rail, got ${result.errors.map((e) => e.code).join(', ')}`);
  return guard as GuardRailError;
}

function loadRefusal(yaml: () => unknown): MappingError {
  try {
    yaml();
  } catch (err) {
    if (err instanceof MappingFileError) return err.problems[0];
    throw err;
  }
  throw new Error('expected the mapping to be refused at load');
}

describe('guard rail: empty replace-on-present lists', () => {
  const suppliers = '  suppliers:\n    each: Lief\n    fields:\n      suppliers_id: { from: Id, type: integer }\n      products_model: Nr\n';

  it('refuses a supplier list that would go out empty because the source had no rows', () => {
    const g = refusal(mapping('products', 'update', `  products_model: K\n${suppliers}`).applySync!({ K: 'A', Lief: [] }, ctx));
    expect(g).toMatchObject({ code: 'GUARD_EMPTY_REPLACE_LIST', field: 'suppliers' });
  });

  it('sends the empty list when the mapping declares that empty means clear', () => {
    const r = mapping('products', 'update', `  products_model: K\n${suppliers}    empty: clear\n`).applySync!({ K: 'A', Lief: [] }, ctx);
    expect(r.ok && r.payload).toEqual({ products_model: 'A', suppliers: [] });
  });

  it('refuses a list whose source is missing unless the mapping says to omit it', () => {
    const g = refusal(mapping('products', 'update', `  products_model: K\n${suppliers}`).applySync!({ K: 'A', Lief: null }, ctx));
    expect(g.code).toBe('GUARD_EMPTY_REPLACE_LIST');
    expect(g.message).toContain('when_missing: omit');
    const r = mapping('products', 'update', `  products_model: K\n${suppliers}    when_missing: omit\n`).applySync!({ K: 'A' }, ctx);
    expect(r.ok && r.payload).toEqual({ products_model: 'A' });
  });

  it('refuses categories from an empty ERP cell split into nothing', () => {
    const m = mapping('products', 'update', '  products_model: K\n  categories: { from: WG, split: ",", item: { from: ., lookup: { reference: categories } } }\n');
    expect(refusal(m.applySync!({ K: 'A', WG: '' }, ctx)).code).toBe('GUARD_EMPTY_REPLACE_LIST');
    expect(refusal(m.applySync!({ K: 'A', WG: ' , ' }, ctx)).code).toBe('GUARD_EMPTY_REPLACE_LIST');
  });

  it('reports only the failed lookup when a list entry finds no reference, not an empty source', () => {
    const m = mapping('products', 'update', '  products_model: K\n  categories: { from: WG, split: ",", item: { from: ., lookup: { reference: categories } } }\n');
    const r = m.applySync!({ K: 'A', WG: 'WG-110' }, { lookupReference: () => undefined });
    if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.payload)}`);
    expect(r.errors.map((e) => e.code)).not.toContain('GUARD_EMPTY_REPLACE_LIST');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.field).toBe('categories[0]');
    expect(r.errors[0]!.message).toContain('WG-110');
  });

  it('refuses an empty list that comes from a constant, an expression or a customer-discount source', async () => {
    expect(refusal(mapping('products', 'update', '  upsells: { value: [] }\n').applySync!({}, ctx)).code).toBe('GUARD_EMPTY_REPLACE_LIST');
    expect(refusal(await mapping('newsdesk', 'update', '  newsdesk_id: { value: 3 }\n  categories_ids: { expr: "[]" }\n').apply({}, ctx)).field).toBe('categories_ids');
    const customers = mapping('customers', 'update', '  customers_id_extern: K\n  discounts:\n    each: R\n    fields:\n      category_id: { value: 0 }\n      value: W\n');
    expect(refusal(customers.applySync!({ K: 'K1', R: [] }, ctx)).code).toBe('GUARD_EMPTY_REPLACE_LIST');
  });

  it('refuses customers_prices_replace with no customer prices', () => {
    const m = mapping('products', 'update', '  products_model: K\n  customers_prices_replace: { value: true }\n  customers_prices:\n    each: KP\n    fields:\n      customers_id_extern: Kd\n      customers_price: P\n');
    expect(refusal(m.applySync!({ K: 'A', KP: [] }, ctx)).code).toBe('GUARD_EMPTY_REPLACE_LIST');
  });

  it('refuses a customer price entry without a price above 0 under customers_prices_replace, but not a plain upsert or a delete', () => {
    const fields = (replace: boolean) => `  products_model: K\n  customers_prices_replace: { value: ${replace} }\n  customers_prices:\n    each: KP\n    fields:\n      customers_id_extern: Kd\n      customers_price: { from: P, type: decimal, locale: de }\n      _action: A\n`;
    const m = mapping('products', 'update', fields(true));
    const empty = refusal(m.applySync!({ K: 'A', KP: [{ Kd: 'K-1', P: '9,90' }, { Kd: 'K-2', P: '' }] }, ctx));
    expect(empty).toMatchObject({ code: 'GUARD_REPLACE_ENTRY_DEFAULT', field: 'customers_prices[1].customers_price' });
    expect(refusal(m.applySync!({ K: 'A', KP: [{ Kd: 'K-1', P: '0,00' }] }, ctx)).code).toBe('GUARD_REPLACE_ENTRY_DEFAULT');
    expect(m.applySync!({ K: 'A', KP: [{ Kd: 'K-1', P: '9,90' }, { Kd: 'K-2', A: 'delete' }] }, ctx).ok).toBe(true);
    expect(mapping('products', 'update', fields(false)).applySync!({ K: 'A', KP: [{ Kd: 'K-2', P: '' }] }, ctx).ok).toBe(true);
  });

  it('refuses assigned admins of a ticket and leader admins of a project sent empty', () => {
    const t = mapping('tickets', 'update', '  ticket_id: { value: 1 }\n  assigned_admins: { from: Admins, split: ";" , item: { from: ., type: integer } }\n');
    expect(refusal(t.applySync!({ Admins: '' }, ctx)).field).toBe('assigned_admins');
    const p = mapping('projects', 'update', '  project_id: { value: 1 }\n  leader_admin_ids: { value: [] }\n');
    expect(refusal(p.applySync!({}, ctx)).field).toBe('leader_admin_ids');
  });
});

describe('guard rail: decimals leave in point notation', () => {
  it('refuses an ambiguous comma decimal when no locale is declared', () => {
    const m = mapping('products', 'update', '  products_price: { from: P, type: decimal }\n');
    for (const v of ['50,5', '1,234', '1.234']) {
      const g = refusal(m.applySync!({ P: v }, ctx));
      expect(g).toMatchObject({ code: 'GUARD_AMBIGUOUS_DECIMAL', field: 'products_price', sourceValue: v });
    }
    expect(m.applySync!({ P: '50.5' }, ctx)).toMatchObject({ ok: true, payload: { products_price: '50.5' } });
  });

  it('refuses a comma decimal that reaches a decimal field without coercion', () => {
    const m = mapping('products', 'update', '  storages:\n    each: L\n    existing_rows_only: true\n    fields:\n      storages_id: { value: 1 }\n      products_quantity: Menge\n');
    const g = refusal(m.applySync!({ L: [{ Menge: '50,5' }] }, ctx));
    expect(g).toMatchObject({ code: 'GUARD_AMBIGUOUS_DECIMAL', field: 'storages[0].products_quantity', sourceValue: '50,5' });
  });
});

describe('guard rail: strict booleans', () => {
  it('refuses ticket flags that are not JSON booleans', () => {
    const m = mapping('tickets', 'update', '  ticket_id: { value: 7 }\n  ticket_comments: T\n  admin_id: { value: 2 }\n  is_public_reply: Oeffentlich\n  notify_customer: { value: 1 }\n');
    const r = m.applySync!({ T: 'Hallo', Oeffentlich: 'true' }, ctx);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.filter((e) => e.code === 'GUARD_NOT_BOOLEAN').map((e) => [e.field, e.sourceValue])).toEqual([
      ['is_public_reply', 'true'],
      ['notify_customer', 1],
    ]);
  });

  it('lets declared boolean coercion produce real booleans', () => {
    const m = mapping('tickets', 'update', '  ticket_id: { value: 7 }\n  is_public_reply: { from: O, type: boolean, true: [J], false: [N] }\n  force_flag_free: { value: 1 }\n'.replace('  force_flag_free: { value: 1 }\n', ''));
    expect(m.applySync!({ O: 'J' }, ctx)).toMatchObject({ ok: true, payload: { is_public_reply: true } });
  });
});

describe('guard rail: orders pushed to the shop', () => {
  const order = '  customers_id: { value: 1 }\n  products: { each: P, fields: { products_model: M, quantity: { from: Q, type: decimal } } }\n';

  it('refuses at load an order mapping without an explicit tax_flag', () => {
    const p = loadRefusal(() => mapping('orders', 'create', `${order}  external_reference: { fields: { source: { value: phone }, external_id: K } }\n`));
    expect(p.code).toBe('GUARD_ORDER_TAX_FLAG');
  });

  it('refuses at load an order mapping without an external reference', () => {
    expect(loadRefusal(() => mapping('orders', 'upsert', `${order}  tax_flag: { value: 0 }\n`)).code).toBe('GUARD_ORDER_EXTERNAL_REFERENCE');
  });

  it('refuses an order whose tax flag or external id did not come out of the source', () => {
    const m = mapping('orders', 'create', `${order}  tax_flag: { from: Steuer, map: { netto: 0, brutto: 1 } }\n  external_reference: { fields: { source: { value: phone }, external_id: Ext } }\n`);
    const r = m.applySync!({ K: 'AB-1', P: [{ M: 'X', Q: '1' }] }, ctx);
    expect(r.ok ? [] : r.errors.map((e) => e.code).sort()).toEqual(['GUARD_ORDER_EXTERNAL_REFERENCE', 'GUARD_ORDER_TAX_FLAG']);
    expect(m.applySync!({ K: 'AB-1', Steuer: 'netto', Ext: 'T-1', P: [{ M: 'X', Q: '1' }] }, ctx).ok).toBe(true);
  });
});

describe('guard rail: append-only histories', () => {
  const history = '  orders_id: { value: 5 }\n  status_history:\n    each: .\n    fields:\n      orders_status_id: { value: 3 }\n      comments: C\n      date_added: { from: D, type: datetime, format: "DD.MM.YYYY HH:mm" }\n';

  it('refuses at load a mapping that writes status_history without declaring its identity', () => {
    const p = loadRefusal(() => mapping('orders', 'update', history));
    expect(p.code).toBe('GUARD_HISTORY_IDENTITY');
    expect(p.message).toContain('history_identity: [orders_status_id, comments, date_added]');
  });

  it('exposes the identity and refuses an entry that lacks part of it', () => {
    const m = mapping('orders', 'update', history, 'history_identity: [orders_status_id, date_added]\n');
    expect(m.historyIdentity).toEqual(['orders_status_id', 'date_added']);
    expect(m.applySync!({ C: 'x', D: '01.02.2026 10:00' }, ctx).ok).toBe(true);
    expect(refusal(m.applySync!({ C: 'x' }, ctx))).toMatchObject({ code: 'GUARD_HISTORY_IDENTITY', field: 'status_history[0]' });
  });
});

describe('guard rail: storage rows', () => {
  const storages = (extra = '') => `  products_model: K\n  storages:\n    each: L\n${extra}    fields:\n      storages_id: { from: Lager, type: integer }\n      products_quantity: { from: Menge, type: decimal, locale: de }\n      products_storage_text: Platz\n`;

  it('refuses a row without a warehouse id above zero', () => {
    const g = refusal(mapping('products', 'update', storages()).applySync!({ K: 'A', L: [{ Lager: '0', Menge: '1' }] }, ctx));
    expect(g).toMatchObject({ code: 'GUARD_STORAGE_ROW', field: 'storages[0].storages_id' });
  });

  it('refuses a new row without products_quantity and products_safe_quantity unless rows are declared existing', () => {
    const row = { K: 'A', L: [{ Lager: '1', Menge: '5,5' }] };
    expect(refusal(mapping('products', 'update', storages()).applySync!(row, ctx))).toMatchObject({ code: 'GUARD_STORAGE_ROW', field: 'storages[0]' });
    expect(mapping('products', 'update', storages('    existing_rows_only: true\n')).applySync!(row, ctx)).toMatchObject({ ok: true, payload: { storages: [{ storages_id: 1, products_quantity: '5.5' }] } });
  });

  it('refuses a bin location over 50 characters instead of letting it be cut', () => {
    const g = refusal(mapping('products', 'update', storages('    existing_rows_only: true\n')).applySync!({ K: 'A', L: [{ Lager: '1', Menge: '1', Platz: 'R'.repeat(51) }] }, ctx));
    expect(g).toMatchObject({ code: 'GUARD_STORAGE_TEXT_LENGTH', field: 'storages[0].products_storage_text' });
  });
});

describe('guard rail: suppliers, ignored fields and length limits', () => {
  it('flags a supplier entry without the supplier article number', () => {
    const m = mapping('products', 'update', '  products_model: K\n  suppliers: { each: ., fields: { suppliers_id: { value: 2 }, products_model: LiefNr } }\n');
    expect(refusal(m.applySync!({ K: 'A', LiefNr: '' }, ctx))).toMatchObject({ code: 'GUARD_SUPPLIER_WITHOUT_NUMBER', field: 'suppliers[0].products_model' });
    expect(m.applySync!({ K: 'A', LiefNr: 'L-77' }, ctx).ok).toBe(true);
  });

  it('refuses newsdesk_categories_id with a pointer to categories_ids', () => {
    const p = loadRefusal(() => mapping('newsdesk', 'upsert', '  newsdesk_categories_id: Kat\n'));
    expect(p.code).toBe('GUARD_IGNORED_FIELD');
    expect(p.message).toContain('categories_ids');
  });

  it('refuses an SEO string over 255 characters', () => {
    const m = mapping('seohistory', 'create', '  sh_base_id: { value: 1 }\n  languages.de.sh_seo_string: Pfad\n');
    expect(refusal(m.applySync!({ Pfad: 'a'.repeat(256) }, ctx))).toMatchObject({ code: 'GUARD_LENGTH', field: 'languages.de.sh_seo_string' });
    expect(m.applySync!({ Pfad: 'a'.repeat(255) }, ctx).ok).toBe(true);
  });
});
