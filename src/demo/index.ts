/**
 * Demo ERP sample data: deterministic, German-ERP-shaped rows, SQLite table descriptions and a
 * Windows-1252 CSV writer.
 */
export { demoArticles, demoPriceTiers, demoSpecials, demoStock, demoVariants, demoManufacturers, demoCategories, type ErpRow } from './catalog.js';
export { demoCustomers, demoCustomerDiscounts, demoOrders, demoOrderLines, demoOrderStatus, demoContracts } from './sales.js';
export { demoTables, demoSources, type DemoTable, type DemoSource } from './tables.js';
export { writeDemoCsv } from './csv.js';
