/**
 * Per-pipeline settings for file sources (an inbox folder) and file sinks (an outbox folder).
 */
import { z } from 'zod';

/** Text encodings files may use. */
export const encodingSchema = z.enum(['utf-8', 'windows-1252', 'iso-8859-1']);

const folderName = z.string().min(1).refine((s) => !s.includes('/') && !s.includes('\\') && s !== '.' && s !== '..', 'expected a plain folder name');

/** CSV dialect. */
export const csvOptionsSchema = z.strictObject({
  /** @default ',' */
  delimiter: z.string().min(1).max(4).default(','),
  /** @default '"' */
  quote: z.string().length(1).default('"'),
  /** First line holds the column names. @default true */
  header: z.boolean().default(true),
  /** Column names when there is no header line (or to replace it). */
  columns: z.array(z.string().min(1)).optional(),
  /** Accept a quote inside an unquoted field as a literal character (`12" Pizza`), as ERP exports often write. @default true */
  relaxQuotes: z.boolean().default(true),
  /** Skip blank lines. @default true */
  skipEmptyLines: z.boolean().default(true),
});

/** When a file in the inbox counts as completely written. */
export const stabilitySchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('settle'),
    /** The file's modification time must be at least this old, and its size unchanged on a second look. @default 2000 */
    settleMs: z.coerce.number().int().nonnegative().default(2000),
  }),
  z.strictObject({
    mode: z.literal('marker'),
    /** `orders.csv` is ready once `orders.csv<suffix>` exists (the marker is archived with it). @default '.done' */
    markerSuffix: z.string().min(1).default('.done'),
  }),
]);

/** File source: records from the files in an inbox folder, oldest name first. */
export const fileSourceSchema = z.strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
  /** Inbox folder, relative to the connection's folder. */
  folder: z.string().min(1),
  format: z.enum(['csv', 'json', 'ndjson', 'xml']),
  /** File-name glob (`*` and `?`). @default `*.<format>` */
  pattern: z.string().min(1).optional(),
  /**
   * Text encoding. Unset: UTF-8, or for XML the file's own declaration. A UTF-8 byte-order mark
   * always wins (with a warning when it contradicts this setting) and is removed.
   */
  encoding: encodingSchema.optional(),
  csv: csvOptionsSchema.prefault({}),
  /** XML: dotted element path of one record from the root, e.g. `Orders.Order`. */
  recordPath: z.string().min(1).optional(),
  /** XML: element names that are always arrays, even when they occur once (e.g. `Line`). */
  xmlArrays: z.array(z.string().min(1)).default([]),
  /** JSON: dotted path to the records array inside a top-level object (the file is then read whole). */
  recordsPath: z.string().min(1).optional(),
  /** JSON files with `recordsPath` are read whole; larger ones are refused. @default 67108864 */
  maxWholeFileBytes: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /**
   * The longest record read (characters of decoded text, a byte each for most exports): a CSV or
   * NDJSON line, a JSON array element or an XML record element. A longer one is refused as a bad
   * row (`SOURCE_RECORD_TOO_LARGE`) with an excerpt of its start, and reading goes on; its text is
   * never held whole. @default 1048576
   */
  maxRecordBytes: z.coerce.number().int().positive().default(1024 * 1024),
  /** Field holding the record key; default: the record's 1-based index in its file. */
  key: z.string().min(1).optional(),
  stability: stabilitySchema.prefault({ mode: 'settle' }),
  /**
   * Sub-folder a file is moved into before it is read, under `<arrival number>~<name>`: each delivery
   * is read from its first record even when the ERP writes the same file name every night. @default 'processing'
   */
  processingFolder: folderName.default('processing'),
  /** Sub-folder for settled files. @default 'archive' */
  archiveFolder: folderName.default('archive'),
  /** Sub-folder for unreadable files and their `.error.txt` reports. @default 'failed' */
  failedFolder: folderName.default('failed'),
  /**
   * A record the file cannot deliver (broken line, no key, bad JSON/XML): `skip` dead-letters it and
   * reads on; `reject_file` applies nothing of that file (for complete snapshots such as a full stock
   * list), moves it to the failed folder and fails the run. @default skip
   */
  onBadRecord: z.enum(['skip', 'reject_file']).default('skip'),
}).superRefine((cfg, ctx) => {
  if (cfg.format === 'xml' && !cfg.recordPath) ctx.addIssue({ code: 'custom', path: ['recordPath'], message: 'XML sources need recordPath, e.g. Orders.Order' });
});

/** File sink: one file per batch, written under a temporary name and renamed atomically. */
export const fileSinkSchema = z.strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
  /** Outbox folder, relative to the connection's folder (created if missing). */
  folder: z.string().min(1),
  format: z.enum(['csv', 'json', 'ndjson', 'xml']),
  /**
   * File name template: `{batch}` (batch id), `{ext}`, `{count}`, `{record.FIELD}` (first record);
   * substituted values are sanitised so a name never leaves the folder. @default '{batch}.{ext}'
   */
  fileName: z.string().min(1).default('{batch}.{ext}').refine((s) => !/[/\\]/.test(s), 'fileName must not contain path separators'),
  /** @default 'utf-8' */
  encoding: encodingSchema.default('utf-8'),
  /** Write a byte-order mark (UTF-8 only; Excel likes it). @default false */
  bom: z.boolean().default(false),
  csv: z.strictObject({
    delimiter: z.string().min(1).max(4).default(','),
    header: z.boolean().default(true),
    /** Column order; default: fields in order of first appearance in the batch. */
    columns: z.array(z.string().min(1)).optional(),
    /** Write cells a spreadsheet would run as formulas (`=`, `+`, `-`, `@`, tab, CR first) as text, with a leading `'`; for files a person opens. @default false */
    escapeFormulas: z.boolean().default(false),
  }).prefault({}),
  xml: z.strictObject({
    /** @default 'records' */
    root: z.string().regex(/^[A-Za-z_][\w.-]*$/).default('records'),
    /** @default 'record' */
    record: z.string().regex(/^[A-Za-z_][\w.-]*$/).default('record'),
  }).prefault({}),
});

export type FileSourceConfig = z.output<typeof fileSourceSchema>;
export type FileSinkConfig = z.output<typeof fileSinkSchema>;
export type Encoding = z.output<typeof encodingSchema>;
export type FileSourceConfigInput = z.input<typeof fileSourceSchema>;
export type FileSinkConfigInput = z.input<typeof fileSinkSchema>;
