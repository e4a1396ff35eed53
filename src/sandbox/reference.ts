/**
 * Reference data of the sandbox shop: languages, customer groups, tax classes, administrators,
 * status lists, warehouses, countries, shipping methods. Stored in the sandbox database (meta
 * table) so a reset or a different seed changes it; read through `readReference`.
 */
import type Database from 'better-sqlite3';

export interface Language {
  readonly language_id: number;
  readonly code: string;
  readonly name: string;
}
export interface CustomerGroup {
  readonly customers_group_id: number;
  readonly name: string;
  /** 1 = prices shown with tax (gross group), 0 = net group. */
  readonly show_tax: 0 | 1;
  /** 1 = tax-exempt group (orders derive tax_flag 2). */
  readonly tax_exempt: 0 | 1;
  /** Group discount in percent (customers_groups_discount), applied in order recalc. */
  readonly discount?: number;
}
export interface TaxClass {
  readonly tax_class_id: number;
  readonly rate: number;
  /** Name used in ot_tax titles ("inkl. MwSt. 19%"). */
  readonly name: string;
}
export interface Admin {
  readonly admin_id: number;
  readonly name: string;
  readonly email?: string;
}
export interface NamedStatus {
  readonly id: number;
  readonly name: string;
}
export interface TicketStatus extends NamedStatus {
  readonly closing: boolean;
}
export interface Storage {
  readonly storages_id: number;
  readonly name: string;
  readonly active: 0 | 1;
}
export interface Zone {
  readonly zone_id: number;
  readonly code: string;
  readonly name: string;
}
export interface Country {
  readonly countries_id: number;
  readonly iso_code_2: string;
  readonly name: string;
  readonly zones: readonly Zone[];
}
export interface ShippingMethod {
  readonly code: string;
  readonly name: string;
  /** Net cost. */
  readonly cost: number;
  /** ISO codes of the countries served. */
  readonly countries: readonly string[];
  /** Tax class of the shipping cost. */
  readonly tax_class_id: number;
}

/** Everything `GET /sandbox/reference` answers (settings are added from the settings table). */
export interface ReferenceData {
  readonly languages: readonly Language[];
  /** Code of the master language (fills missing languages on product POST). */
  readonly master_language: string;
  readonly customer_groups: readonly CustomerGroup[];
  readonly tax_classes: readonly TaxClass[];
  readonly admins: readonly Admin[];
  readonly ticket_statuses: readonly TicketStatus[];
  readonly ticket_priorities: readonly NamedStatus[];
  readonly ticket_departments: readonly NamedStatus[];
  readonly order_statuses: readonly NamedStatus[];
  readonly project_statuses: readonly NamedStatus[];
  readonly task_statuses: readonly NamedStatus[];
  readonly storages: readonly Storage[];
  readonly countries: readonly Country[];
  readonly shipping_methods: readonly ShippingMethod[];
}

/** Shop settings (all values are strings, as the shop stores them). */
export type Settings = Readonly<Record<string, string>>;

/** Read the reference data stored in a sandbox database. */
export function readReference(db: Database.Database): ReferenceData {
  const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get('reference');
  if (!row) throw new Error('The sandbox database holds no reference data; seed it first (POST /sandbox/reset)');
  return JSON.parse(row.value) as ReferenceData;
}

/** Store reference data. */
export function writeReference(db: Database.Database, reference: ReferenceData): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run('reference', JSON.stringify(reference));
}

/** Read all settings. */
export function readSettings(db: Database.Database): Settings {
  const rows = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings ORDER BY key').all();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Set settings (values are stored as strings). */
export function writeSettings(db: Database.Database, settings: Readonly<Record<string, string>>): void {
  const stmt = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  for (const [key, value] of Object.entries(settings)) stmt.run(key, value);
}

/** The public shape of `GET /sandbox/reference`. */
export function referenceView(reference: ReferenceData, settings: Settings): Record<string, unknown> {
  return {
    ...reference,
    default_language: settings.DEFAULT_LANGUAGE ?? reference.master_language,
    settings,
  };
}
