/** Reconciliation of a push pipeline's ERP side with its shop: drift report, CSV, repair. */
export { reconcilePipeline, type ReconcileOptions } from './run.js';
export { ReportStore, reportsFolder, reportId, CsvReport } from './store.js';
export { reconcileReportSchema, SAMPLE_SIZE, type ReconcileReport, type RepairResult, type ReconcileCounts } from './report.js';
