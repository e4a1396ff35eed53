/**
 * The file source. The inbox folder is the queue: every file still in it is unprocessed. Files are
 * read in name order, record by record; a position is `{ value: <file name>, key: <record index> }`.
 * A file moves to archive/ once the pipeline commits a position at or past its last record, and to
 * failed/ (with `<name>.error.txt`) when it cannot be read. After a crash before the archive step the
 * file is read again and records at or before the committed position are skipped.
 *
 * A record the file cannot deliver (a broken line, no key, bad JSON or XML) is handed out as a
 * refused item with its file, line and raw text: the pipeline dead-letters it and reading goes on.
 * A file that cannot be read at all becomes one refused item of its own, so the run never reports
 * success over it. With `onBadRecord: reject_file` a file with any bad record is refused whole
 * before a single record of it is handed out.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { FilesConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';
import { SOURCE_CODES, type ConnectorContext, type CursorPosition, type ReadOptions, type RecordOrigin, type Source, type SourceItem } from '../types.js';
import { comparePositions, compareValues, pathReader, recordSchema } from '../values.js';
import type { FileSourceConfig } from './config.js';
import { readCsv } from './csv.js';
import { checkBytes, fileEncoding } from './encoding.js';
import type { FileRow } from './rows.js';
import { moveInto, moveToFailed, readyFiles, unchangedSince } from './folders.js';
import { readJson, readNdjson } from './json.js';
import { readXml } from './xml.js';

/** Record indexes are zero-padded so positions inside a file compare correctly as strings. */
export function indexKey(index: number): string {
  return String(index).padStart(10, '0');
}

const readers: Record<FileSourceConfig['format'], (file: string, cfg: FileSourceConfig) => AsyncGenerator<FileRow>> = {
  csv: readCsv,
  json: readJson,
  ndjson: readNdjson,
  xml: readXml,
};

interface ReadFile {
  /** Last position yielded from the file; the file is settled once a commit reaches it. */
  readonly last: CursorPosition;
  /** Set when reading stopped on an error: the file goes to failed/ instead of archive/. */
  readonly error?: string;
  /** Records handed out from the file in this read. */
  readonly handedOut: number;
}

/** Create a file source over an inbox folder. */
export async function fileSource(conn: FilesConnection, cfg: FileSourceConfig, ctx: ConnectorContext): Promise<Source> {
  const folder = path.resolve(ctx.baseDir, conn.folder, cfg.folder);
  const logger: Logger = ctx.logger.child({ folder });
  const connector = cfg.format;
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  const pending = new Map<string, ReadFile>();

  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw connectorError(connector, CONNECTOR_CODES.folderMissing, `inbox folder ${folder} does not exist; create it or fix \`folder\` (relative to the connection folder ${path.resolve(ctx.baseDir, conn.folder)}).`);
  }

  /** Run a move; a failure to move is a typed error, never a raw fs error. */
  async function moving<T>(name: string, move: () => Promise<T>): Promise<T> {
    try {
      return await move();
    } catch (err) {
      throw connectorError(connector, CONNECTOR_CODES.fileWriteFailed, `cannot move ${name} out of ${folder}: ${causeText(err)}. Check write permission on the folder.`, { cause: err });
    }
  }

  async function fail(name: string, reason: string, handedOut: number): Promise<void> {
    const report = [`file: ${name}`, `code: ${CONNECTOR_CODES.fileUnreadable}`, `error: ${reason}`, `records handed out before the error: ${handedOut}`, `moved: ${new Date().toISOString()}`, ''].join('\n');
    const moved = await moving(name, () => moveToFailed(folder, cfg, name, report));
    logger.error({ code: CONNECTOR_CODES.fileUnreadable, file: name, movedTo: moved, reason }, 'file cannot be read; moved to the failed folder');
  }

  async function archive(name: string, records: number): Promise<void> {
    const moved = await moving(name, () => moveInto(folder, cfg.archiveFolder, name, marker));
    logger.info({ file: name, movedTo: moved, records }, 'file settled; archived');
  }

  const keyOf = pathReader(cfg.key);

  async function* read(options: ReadOptions): AsyncGenerator<SourceItem> {
    let names: string[];
    try {
      names = await readyFiles(folder, cfg);
    } catch (err) {
      throw connectorError(connector, CONNECTOR_CODES.fileUnreadable, `inbox folder ${folder} cannot be listed: ${causeText(err)}. Check that it exists and is readable.`, { cause: err });
    }
    const after = options.after;
    const rejected: string[] = [];
    for (const name of names) {
      if (options.signal?.aborted) throw new AbortedError();
      if (options.until !== undefined && options.until !== null && compareValues(name, options.until) > 0) break;
      if (after && after.value !== null && compareValues(name, after.value) < 0) {
        // Still in the inbox although it sorts before the committed position: a late drop, not a settled file.
        logger.warn({ file: name, after }, 'file sorts before the committed position but was never archived; reading it in full');
      }
      const skipThrough = after && after.value === name && after.key !== null ? Number(after.key) : 0;
      const file = path.join(folder, name);
      const before = await stat(file).catch(() => undefined);
      if (!before) continue; // taken away meanwhile
      if (cfg.onBadRecord === 'reject_file' && skipThrough === 0) {
        const problems = await badRows(file);
        if (problems.length > 0) {
          const reason = `refused whole (onBadRecord: reject_file): ${problems.length} bad record(s), first ${problems.slice(0, 3).join('; ')}`;
          if (options.readOnly) {
            // Shown, not moved: the file is one refused item, and reading goes on with the next file.
            yield { record: {}, key: name, position: { value: name, key: indexKey(1) }, refused: { code: SOURCE_CODES.fileRejected, message: `${name} ${reason}` }, origin: { file: name } };
            continue;
          }
          await fail(name, reason, 0);
          rejected.push(`${name}: ${reason}`);
          continue;
        }
      }
      let index = 0;
      let yielded = 0;
      let last: CursorPosition | undefined;
      let error: string | undefined;
      try {
        const decided = fileEncoding(file, cfg);
        if (decided.warning) logger.warn({ file: name, encoding: decided.encoding, configured: cfg.encoding }, decided.warning);
        if (skipThrough === 0) await checkBytes(file, decided.encoding);
        for await (const row of readers[cfg.format](file, { ...cfg, encoding: decided.encoding })) {
          if (options.signal?.aborted) throw new AbortedError();
          index++;
          if (index <= skipThrough) continue;
          const position: CursorPosition = { value: name, key: indexKey(index) };
          yield itemOf(name, index, row, position);
          yielded++;
          last = position;
        }
        if (!(await unchangedSince(file, before.size, before.mtimeMs))) {
          throw new Error('file changed while it was read; the writer must write to a temporary name or use a marker file');
        }
      } catch (err) {
        if (err instanceof AbortedError || options.signal?.aborted) throw err;
        error = `${causeText(err)}`;
      }
      if (error !== undefined) {
        // The file itself is a letter, so the run cannot end as succeeded over an unread file.
        const position: CursorPosition = { value: name, key: indexKey(index + 1) };
        const message = yielded === 0 && index === 0 ? `${name} cannot be read: ${error}` : `${name} stopped reading after record ${index}: ${error}; the records before it were read, the rest of the file was not`;
        yield { record: {}, key: name, position, refused: { code: SOURCE_CODES.fileUnreadable, message }, origin: { file: name } };
        pending.set(name, { last: position, error: yielded === 0 ? error : `${error} (after record ${index})`, handedOut: yielded });
        logger.warn({ file: name, reason: error }, 'file stopped reading on an error; it moves to the failed folder once what was read is committed');
      } else if (yielded === 0) {
        // Empty, or every record already at or before the committed position: nothing left to settle.
        if (!options.readOnly) await archive(name, index);
      } else if (last) {
        pending.set(name, { last, handedOut: yielded });
      }
    }
    if (rejected.length > 0) {
      const files = rejected.splice(0);
      throw connectorError(connector, CONNECTOR_CODES.fileRejected, `${files.length} file(s) refused whole and moved to ${cfg.failedFolder}/, nothing of them applied: ${files.join(' | ')}. Fix the records and drop the file again.`);
    }
  }

  /** A row as an item: a record with its key, or a refused one (a broken row, no key) under its key or its place. */
  function itemOf(name: string, index: number, row: FileRow, position: CursorPosition): SourceItem {
    const origin: RecordOrigin = { file: name, ...(row.line !== undefined ? { line: row.line } : { element: row.element ?? index }), ...(row.raw !== undefined ? { raw: row.raw } : {}) };
    const place = `${name}#${row.line !== undefined ? `line ${row.line}` : `record ${row.element ?? index}`}`;
    const where = row.line !== undefined ? `line ${row.line}` : `record ${row.element ?? index}`;
    const parsed = row.record === undefined ? undefined : recordSchema.safeParse(row.record);
    const record = parsed?.success && !Array.isArray(row.record) ? parsed.data : undefined;
    const keyValue = cfg.key === undefined ? index : record ? keyOf(record) : undefined;
    const key = keyValue === undefined || keyValue === null || keyValue === '' || typeof keyValue === 'object' ? undefined : String(keyValue);
    if (row.bad) return { record: record ?? {}, key: key ?? place, position, refused: { code: row.bad.code, message: `${name} ${where}: ${row.bad.message}` }, origin };
    if (!record) return { record: {}, key: place, position, refused: { code: SOURCE_CODES.notAnObject, message: `${name} ${where}: the record is not a JSON object` }, origin };
    if (key === undefined) return { record, key: place, position, refused: { code: SOURCE_CODES.keyMissing, message: `${name} ${where}: no value in key field ${cfg.key}; the record cannot be told apart from others` }, origin };
    return { record, key, position, origin };
  }

  /** The bad rows of a whole file (reject_file reads it once before handing anything out). */
  async function badRows(file: string): Promise<string[]> {
    const out: string[] = [];
    let index = 0;
    try {
      for await (const row of readers[cfg.format](file, { ...cfg, encoding: fileEncoding(file, cfg).encoding })) {
        index++;
        const item = itemOf(path.basename(file), index, row, { value: null, key: null });
        if (item.refused) out.push(item.refused.message);
      }
    } catch (err) {
      out.push(`the file cannot be read: ${causeText(err)}`);
    }
    return out;
  }

  async function commit(position: CursorPosition): Promise<void> {
    for (const [name, file] of [...pending]) {
      if (comparePositions(file.last, position) > 0) continue;
      pending.delete(name);
      if (file.error !== undefined) await fail(name, file.error, file.handedOut);
      else await archive(name, file.handedOut);
    }
  }

  return { kind: connector, read, commit, close: async () => undefined };
}
