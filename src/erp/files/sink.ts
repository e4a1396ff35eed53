/**
 * The file sink: one file per batch, written to a new `.<name>.<random>.tmp`, flushed to disk, then
 * renamed, so a reader never sees half a file. The temporary name is random and created with
 * O_CREAT|O_EXCL|O_NOFOLLOW: whoever else writes the outbox cannot plant a link under it to have
 * shopsync write elsewhere (issue 42 item 8); the rename replaces a link at the final name, never
 * follows it. The name comes from a template with the batch id, so a repeated
 * batch replaces its own file instead of adding a second one.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { XMLBuilder } from 'fast-xml-parser';
import iconv from 'iconv-lite';
import { ConfigError } from '../../errors.js';
import type { FilesConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';
import type { ConnectorContext, ErpRecord, Sink, SinkBatch } from '../types.js';
import { getPath } from '../values.js';
import type { FileSinkConfig } from './config.js';
import { escapeFormulaCell } from '../../util/csvCell.js';

/** Reduce a value to a safe file-name fragment: no separators, no leading dots, bounded length. */
export function sanitizeName(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 120);
  return cleaned === '' ? '_' : cleaned;
}

/** Fill the file-name template for a batch; the result always names a file directly inside `folder`. */
export function fileNameFor(template: string, batch: SinkBatch, ext: string): string {
  const first = batch.records[0] ?? {};
  const name = template.replace(/\{([^}]+)\}/g, (_m, token: string) => {
    if (token === 'batch') return sanitizeName(batch.id);
    if (token === 'ext') return ext;
    if (token === 'count') return String(batch.records.length);
    if (token.startsWith('record.')) {
      const v = getPath(first, token.slice('record.'.length));
      return sanitizeName(v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    throw new Error(`unknown placeholder {${token}} in fileName; use {batch}, {ext}, {count} or {record.FIELD}`);
  });
  return sanitizeName(name);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Serialise a batch in the configured format. */
export function serialise(cfg: FileSinkConfig, records: readonly ErpRecord[]): string {
  if (cfg.format === 'json') return `${JSON.stringify(records, null, 2)}\n`;
  if (cfg.format === 'ndjson') return records.map((r) => `${JSON.stringify(r)}\n`).join('');
  if (cfg.format === 'xml') {
    const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', format: true, suppressEmptyNode: true });
    return `<?xml version="1.0" encoding="${cfg.encoding.toUpperCase()}"?>\n${builder.build({ [cfg.xml.root]: { [cfg.xml.record]: records } }) as string}`;
  }
  const columns = cfg.csv.columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const rows = records.map((r) => columns.map((c) => (cfg.csv.escapeFormulas ? escapeFormulaCell(cell(r[c])) : cell(r[c]))));
  return stringify(rows, { delimiter: cfg.csv.delimiter, header: cfg.csv.header, columns, record_delimiter: 'windows' });
}

/** A temporary file is always a new entry, never an existing name or a link. */
const TMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Create a file sink writing into an outbox folder. */
export async function fileSink(conn: FilesConnection, cfg: FileSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const folder = path.resolve(ctx.baseDir, conn.folder, cfg.folder);
  const connector = cfg.format;
  try {
    fileNameFor(cfg.fileName, { id: 'check', records: [] }, cfg.format);
  } catch (err) {
    throw new ConfigError(`sink.fileName: ${causeText(err)}`, { key: 'fileName' });
  }
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    throw connectorError(connector, CONNECTOR_CODES.fileWriteFailed, `outbox folder ${folder} cannot be created: ${causeText(err)}. Check \`folder\` and permissions.`, { cause: err });
  }

  async function write(batch: SinkBatch): Promise<void> {
    const name = fileNameFor(cfg.fileName, batch, cfg.format);
    const target = path.join(folder, name);
    if (path.dirname(target) !== folder || name === '.' || name === '..') {
      throw connectorError(connector, CONNECTOR_CODES.fileWriteFailed, `file name ${JSON.stringify(name)} would leave ${folder}; fix fileName.`);
    }
    const text = serialise(cfg, batch.records);
    const bom = cfg.bom && cfg.encoding === 'utf-8' ? '\uFEFF' : '';
    const bytes = iconv.encode(bom + text, cfg.encoding);
    const tmp = path.join(folder, `.${name.slice(0, 200)}.${randomBytes(8).toString('hex')}.tmp`);
    let created = false;
    try {
      const handle = await open(tmp, TMP_FLAGS, 0o644);
      created = true;
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, target);
      // The rename is durable only once the directory entry is flushed.
      const dir = await open(folder, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (err) {
      // Only a file this write created is removed: an entry that was there already is not ours.
      if (created) await rm(tmp, { force: true }).catch(() => undefined);
      throw connectorError(connector, CONNECTOR_CODES.fileWriteFailed, `cannot write ${target}: ${causeText(err)}. Check free space and permissions.`, { cause: err });
    }
    ctx.logger.debug({ file: target, records: batch.records.length }, 'batch written');
  }

  return { kind: connector, write, close: async () => undefined };
}
