/**
 * Where reconciliation reports live: files under the state's folder (`<state folder>/reconcile/
 * <pipeline>/<id>.json` and `.csv`), or under the config's folder when the state is PostgreSQL or
 * in memory. Files, not state rows: a report is a snapshot a person downloads (the CSV may hold a
 * row per drifted field of a whole catalog), it needs no transaction with the sync's bookkeeping,
 * and both state backends stay as they are. The last `keep` reports per pipeline are kept.
 */
import { createWriteStream, existsSync, rmSync, type WriteStream } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { StateLocation } from '../state/index.js';
import { reconcileReportSchema, type ReconcileReport } from './report.js';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../util/privateFiles.js';
import { escapeFormulaCell } from '../util/csvCell.js';

const ID = /^[0-9A-Za-z-]+$/;

/** The reports folder of a deployment. */
export function reportsFolder(state: StateLocation, baseDir: string): string {
  if (state.kind === 'sqlite' && state.path !== ':memory:') return join(dirname(resolve(baseDir, state.path)), 'reconcile');
  return join(resolve(baseDir), 'reconcile');
}

/** A report id from its start time (sortable, safe in a file name). */
export function reportId(at: Date): string {
  return at.toISOString().replace(/[:.]/g, '-');
}

/** Options of a CSV report. */
export interface CsvReportOptions {
  /** Write cells a spreadsheet would run as formulas (`=`, `+`, `-`, `@`, tab, CR first) as text, with a leading `'`: the values come from the shop and the ERP. @default true */
  readonly escapeFormulas?: boolean;
}

/** The CSV report being written. */
export class CsvReport {
  static readonly HEADER = ['kind', 'erp_key', 'shop_key', 'shop_id', 'field', 'shop_value', 'erp_value'];
  private readonly out: WriteStream;
  private readonly done: Promise<void>;

  private readonly escapeFormulas: boolean;

  constructor(
    private readonly file: string,
    options: CsvReportOptions = {},
  ) {
    this.escapeFormulas = options.escapeFormulas ?? true;
    // Created anew (a crash's leftover would keep its mode) with the mode of a private file: a umask only clears bits.
    rmSync(`${file}.part`, { force: true });
    this.out = createWriteStream(`${file}.part`, { mode: PRIVATE_FILE_MODE, flags: 'wx' });
    this.done = new Promise((res, rej) => {
      this.out.once('finish', () => res());
      this.out.once('error', rej);
    });
    this.out.write(stringify([CsvReport.HEADER]));
  }

  /** Write one row, waiting when the file falls behind. */
  async row(values: readonly unknown[]): Promise<void> {
    const cells = values.map((v) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)));
    const text = stringify([this.escapeFormulas ? cells.map(escapeFormulaCell) : cells]);
    if (!this.out.write(text)) await new Promise<void>((res) => this.out.once('drain', () => res()));
  }

  /** Finish the file (renamed into place only when complete). */
  async close(): Promise<void> {
    this.out.end();
    await this.done;
    await rename(`${this.file}.part`, this.file);
  }

  /** Stop writing and delete the partial file. */
  async discard(): Promise<void> {
    this.out.destroy();
    await rm(`${this.file}.part`, { force: true });
  }
}

/** The reports of every pipeline. */
export class ReportStore {
  constructor(readonly folder: string) {}

  private dir(pipeline: string): string {
    return join(this.folder, pipeline);
  }

  /** Start a CSV report for `id`. */
  async csv(pipeline: string, id: string, options: CsvReportOptions = {}): Promise<CsvReport> {
    await mkdirPrivate(this.dir(pipeline));
    return new CsvReport(join(this.dir(pipeline), `${id}.csv`), options);
  }

  /** Save a report (atomically) and delete the oldest beyond `keep`. */
  async save(report: ReconcileReport, keep: number): Promise<string> {
    const file = join(this.dir(report.pipeline), `${report.id}.json`);
    await mkdirPrivate(this.dir(report.pipeline));
    await rm(`${file}.part`, { force: true });
    await writeFile(`${file}.part`, JSON.stringify(report, null, 2), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await rename(`${file}.part`, file);
    const ids = await this.ids(report.pipeline);
    for (const old of ids.slice(keep)) {
      await rm(join(this.dir(report.pipeline), `${old}.json`), { force: true });
      await rm(join(this.dir(report.pipeline), `${old}.csv`), { force: true });
    }
    return file;
  }

  /** Report ids of a pipeline, newest first. */
  async ids(pipeline: string): Promise<string[]> {
    if (!ID.test(pipeline.replace(/[._]/g, '-')) || !existsSync(this.dir(pipeline))) return [];
    const names = await readdir(this.dir(pipeline));
    return names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((id) => ID.test(id)).sort().reverse();
  }

  /** A report by id (undefined when absent or unreadable). */
  async read(pipeline: string, id: string): Promise<ReconcileReport | undefined> {
    if (!ID.test(id) || !(await this.ids(pipeline)).includes(id)) return undefined;
    try {
      const parsed = reconcileReportSchema.safeParse(JSON.parse(await readFile(join(this.dir(pipeline), `${id}.json`), 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** The newest report of a pipeline. */
  async latest(pipeline: string): Promise<ReconcileReport | undefined> {
    const [id] = await this.ids(pipeline);
    return id ? this.read(pipeline, id) : undefined;
  }

  /** The CSV file of a report, when it exists. */
  async csvFile(pipeline: string, id: string): Promise<string | undefined> {
    if (!ID.test(id) || !(await this.ids(pipeline)).includes(id)) return undefined;
    const file = join(this.dir(pipeline), `${id}.csv`);
    return existsSync(file) ? file : undefined;
  }
}
