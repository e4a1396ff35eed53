/**
 * Reference data and settings of the sandbox shop (both seeds; `empty` only leaves the records out).
 * Ids follow the classic shop layout: language 1 = en, 2 = de (de is default and master).
 */
import type { ReferenceData } from '../reference.js';

/** The reference data every seed loads. */
export const SEED_REFERENCE: ReferenceData = {
  languages: [
    { language_id: 1, code: 'en', name: 'English' },
    { language_id: 2, code: 'de', name: 'Deutsch' },
  ],
  master_language: 'de',
  customer_groups: [
    { customers_group_id: 1, name: 'Guest', show_tax: 1, tax_exempt: 0 },
    { customers_group_id: 2, name: 'Customer (gross)', show_tax: 1, tax_exempt: 0 },
    { customers_group_id: 3, name: 'Merchant (net)', show_tax: 0, tax_exempt: 0, discount: 5 },
    { customers_group_id: 4, name: 'Export (tax-exempt)', show_tax: 0, tax_exempt: 1 },
  ],
  tax_classes: [
    { tax_class_id: 1, rate: 19, name: 'MwSt.' },
    { tax_class_id: 2, rate: 7, name: 'MwSt.' },
  ],
  admins: [
    { admin_id: 1, name: 'Anna Admin', email: 'anna@demo-shop.example' },
    { admin_id: 2, name: 'Ben Backoffice', email: 'ben@demo-shop.example' },
    { admin_id: 3, name: 'Clara Support', email: 'clara@demo-shop.example' },
  ],
  ticket_statuses: [
    { id: 1, name: 'Open', closing: false },
    { id: 2, name: 'In progress', closing: false },
    { id: 3, name: 'Waiting for customer', closing: false },
    { id: 4, name: 'Closed', closing: true },
    { id: 5, name: 'Rejected', closing: true },
  ],
  ticket_priorities: [
    { id: 1, name: 'Low' },
    { id: 2, name: 'Normal' },
    { id: 3, name: 'High' },
    { id: 4, name: 'Urgent' },
  ],
  ticket_departments: [
    { id: 1, name: 'Support' },
    { id: 2, name: 'Sales' },
    { id: 3, name: 'Billing' },
  ],
  order_statuses: [
    { id: 1, name: 'Pending' },
    { id: 2, name: 'Processing' },
    { id: 3, name: 'Shipped' },
    { id: 4, name: 'Cancelled' },
    { id: 5, name: 'Returned' },
  ],
  project_statuses: [
    { id: 1, name: 'Planned' },
    { id: 2, name: 'Active' },
    { id: 3, name: 'On hold' },
    { id: 4, name: 'Done' },
  ],
  task_statuses: [
    { id: 1, name: 'Open' },
    { id: 2, name: 'In progress' },
    { id: 3, name: 'Review' },
    { id: 4, name: 'Done' },
  ],
  storages: [
    { storages_id: 1, name: 'Warehouse North', active: 1 },
    { storages_id: 2, name: 'Old warehouse (closed)', active: 0 },
    { storages_id: 3, name: 'Warehouse South', active: 1 },
  ],
  countries: [
    { countries_id: 81, iso_code_2: 'DE', name: 'Germany', zones: [
      { zone_id: 79, code: 'BAY', name: 'Bayern' },
      { zone_id: 80, code: 'BER', name: 'Berlin' },
      { zone_id: 84, code: 'HAM', name: 'Hamburg' },
      { zone_id: 88, code: 'NRW', name: 'Nordrhein-Westfalen' },
    ] },
    { countries_id: 14, iso_code_2: 'AT', name: 'Austria', zones: [
      { zone_id: 95, code: 'WI', name: 'Wien' },
      { zone_id: 96, code: 'T', name: 'Tirol' },
    ] },
    { countries_id: 204, iso_code_2: 'CH', name: 'Switzerland', zones: [{ zone_id: 104, code: 'ZH', name: 'Zürich' }] },
    { countries_id: 73, iso_code_2: 'FR', name: 'France', zones: [] },
    { countries_id: 150, iso_code_2: 'NL', name: 'Netherlands', zones: [] },
    { countries_id: 222, iso_code_2: 'GB', name: 'United Kingdom', zones: [] },
    { countries_id: 223, iso_code_2: 'US', name: 'United States', zones: [{ zone_id: 12, code: 'CA', name: 'California' }, { zone_id: 43, code: 'NY', name: 'New York' }] },
  ],
  shipping_methods: [
    { code: 'dhl', name: 'DHL Paket', cost: 4.9, countries: ['DE'], tax_class_id: 1 },
    { code: 'dpd', name: 'DPD Classic', cost: 5.5, countries: ['DE', 'AT', 'NL'], tax_class_id: 1 },
    { code: 'intl', name: 'International parcel', cost: 14.9, countries: ['AT', 'CH', 'FR', 'NL', 'GB'], tax_class_id: 1 },
  ],
};

/** Shop settings every seed starts with. */
export const SEED_SETTINGS: Readonly<Record<string, string>> = {
  EXTENDED_STORAGE_SYSTEM: 'true',
  SHOP_NEWSLETTER_DOUBLE_OPT_IN: 'true',
  DISPLAY_PRICE_WITH_TAX: 'true',
  DEFAULT_LANGUAGE: 'de',
  DEFAULT_CURRENCY: 'EUR',
  DEFAULT_CUSTOMERS_STATUS_ID: '2',
  DEFAULT_ORDERS_STATUS_ID: '1',
  MODULE_ORDER_TOTAL_PREFIX: 'true',
  API_MEDIA_MAX_FILESIZE: '10485760',
  STORE_COUNTRY: '81',
  STORE_NAME: 'Demo Shop',
  STORE_OWNER_EMAIL_ADDRESS: 'shop@demo-shop.example',
  SEND_EXTRA_ORDER_EMAILS_TO: 'orders@demo-shop.example, accounting@demo-shop.example',
  WARRANTY_PERIOD_DEFAULT: '24',
};
