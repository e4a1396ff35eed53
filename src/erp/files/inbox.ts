/**
 * The file source. The inbox folder is the queue: every file in it is undelivered. A ready file is
 * claimed before it is read (./claims.ts: moved into processing/ as `<arrival>~<name>`), so the same
 * name delivered again is a new delivery. Deliveries are read in arrival order, record by record; a
 * position is `{ value: <claimed name>, key: <record index> }`. A delivery moves to archive/ (under
 * its own name) once the pipeline commits a position at or past its last record and the file did not
 * change since it was read, and to failed/ (with `<name>.error.txt`) when it cannot be read. After a
 * crash before the archive step the delivery is read again and records at or before the committed
 * position are skipped.
 *
 * A file that grows while or after it is read (a writer still appending) is never archived half
 * read: its last record, which may be cut short, is held back, the delivery stays in processing/ and
 * the next read continues after its last settled record. Later deliveries wait for it. A delivery is
 * archived only once nothing wrote to it for a second (or the settle time, if longer): a writer that
 * keeps the file open writes on into processing/, where the next read finds it.
 *
 * A record the file cannot deliver (a broken line, no key, bad JSON or XML) is handed out as a
 * refused item with its file, line and raw text: the pipeline dead-letters it and reading goes on.
 * A file that cannot be read at all becomes one refused item of its own, so the run never reports
 * success over it. With `onBadRecord: reject_file` a file with any bad record is refused whole
 * before a single record of it is handed out. A delivery that settles whole closes the letters of
 * earlier deliveries of its name (`commit` reports it; the pipeline keeps those this run wrote).
 */
import type { Stats } from 'node:fs';
import { lstat, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { FilesConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';
import { SOURCE_CODES, type ConnectorContext, type CursorPosition, type ReadOptions, type RecordOrigin, type SettledFile, type Source, type SourceCommit, type SourceItem } from '../types.js';
import { comparePositions, compareValues, pathReader, recordSchema } from '../values.js';
import { claimArrivals, previewArrivals, type Delivery, type OnUnusable } from './claims.js';
import type { FileSourceConfig } from './config.js';
import { readCsv } from './csv.js';
import { checkBytes, fileEncoding } from './encoding.js';
import { escapeControl, openClaimed, UnsafeEntryError } from './entries.js';
import type { FileRow } from './rows.js';
import { endsWithLineBreak, firstTimeUnusable, moveInto, moveToFailed, quietFor, settled, unchangedSince } from './folders.js';
import { readJson, readNdjson } from './json.js';
import { readXml } from './xml.js';

/** Record indexes are zero-padded so positions inside a file compare correctly as strings. */
export function indexKey(index: number): string {
  return String(index).padStart(10, '0');
}

const readers: Record<FileSourceConfig['format'], (file: FileHandle, cfg: FileSourceConfig) => AsyncGenerator<FileRow>> = {
  csv: readCsv,
  json: readJson,
  ndjson: readNdjson,
  xml: readXml,
};

interface ReadFile {
  readonly delivery: Delivery;
  /** Last position yielded from the file; the file is settled once a commit reaches it. */
  readonly last: CursorPosition;
  /** Set when reading stopped on an error: the file goes to failed/ instead of archive/. */
  readonly error?: string;
  /** Records handed out from the file in this read. */
  readonly handedOut: number;
  /** Size and mtime when it was read to the end; a file that differs at commit grew and is read on. */
  readonly size: number;
  readonly mtimeMs: number;
  /** It grew while it was read: its last record was held back, it stays in processing/. */
  readonly grew: boolean;
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
      if (err instanceof UnsafeEntryError) throw connectorError(connector, CONNECTOR_CODES.fileUnsafe, `cannot move ${escapeControl(name)} out of ${folder}: ${err.message}`, { cause: err });
      throw connectorError(connector, CONNECTOR_CODES.fileWriteFailed, `cannot move ${name} out of ${folder}: ${causeText(err)}. Check write permission on the folder.`, { cause: err });
    }
  }

  async function fail(d: Delivery, reason: string, handedOut: number): Promise<void> {
    // A name or reason may hold line breaks: escaped, so no value can add a line of its own to the report.
    const report = [`file: ${escapeControl(d.original)}`, `code: ${d.unsafe ? CONNECTOR_CODES.fileUnsafe : CONNECTOR_CODES.fileUnreadable}`, `error: ${escapeControl(reason)}`, `records handed out before the error: ${handedOut}`, `moved: ${new Date().toISOString()}`, ''].join('\n');
    const moved = await moving(d.original, () => moveToFailed(folder, cfg, d, d.original, report));
    if (moved.links.length > 0) {
      logger.warn({ code: CONNECTOR_CODES.fileUnsafe, file: d.original, links: moved.links, movedTo: moved.path }, `refused to write through symbolic link(s) in ${cfg.failedFolder}/ (${moved.links.map(escapeControl).join(', ')}); the file and its report took the next free name. Remove the links and check who can write into ${cfg.failedFolder}/`);
    }
    logger.error({ code: CONNECTOR_CODES.fileUnreadable, file: d.original, movedTo: moved.path, reason }, 'file cannot be read; moved to the failed folder');
  }

  async function archive(d: Delivery, records: number): Promise<void> {
    const moved = await moving(d.original, () => moveInto(d, path.join(folder, cfg.archiveFolder), d.original, marker));
    logger.info({ file: d.original, movedTo: moved, records }, 'file settled; archived');
  }

  const keyOf = pathReader(cfg.key);

  /** A file whose name cannot be handled stays in the inbox; it is said once per process, not at every run. */
  const unusable: OnUnusable = (file, raw) => {
    if (firstTimeUnusable(folder, raw)) logger.warn({ code: CONNECTOR_CODES.fileUnreadable, file: file.name, reason: file.reason }, `inbox file skipped: ${file.reason}`);
  };

  async function* read(options: ReadOptions): AsyncGenerator<SourceItem> {
    const after = options.after;
    let deliveries: Delivery[];
    try {
      deliveries = options.readOnly ? await previewArrivals(folder, cfg, unusable) : await claimArrivals(folder, cfg, after, unusable);
    } catch (err) {
      if (err instanceof UnsafeEntryError) throw connectorError(connector, CONNECTOR_CODES.fileUnsafe, `inbox folder ${folder}: ${err.message}`, { cause: err });
      throw connectorError(connector, CONNECTOR_CODES.fileUnreadable, `inbox folder ${folder} cannot be listed or its files claimed: ${causeText(err)}. Check that it exists and is writable.`, { cause: err });
    }
    const rejected: string[] = [];
    for (const d of deliveries) {
      const name = d.original;
      if (options.signal?.aborted) throw new AbortedError();
      if (options.until !== undefined && options.until !== null && compareValues(name, options.until) > 0) continue;
      const file = path.join(d.dir, d.name);
      // A claimed file a writer still appends to: it and every later delivery wait for the next read.
      if (!(await settled(file, cfg))) {
        logger.info({ file: name }, 'file is still being written; it and the files after it are read once it has settled');
        break;
      }
      if (after && after.value !== null && compareValues(d.name, after.value) < 0) {
        // Still here although it sorts before the committed position: never settled whole; read it again.
        logger.warn({ file: name, after }, 'file sorts before the committed position but was never archived; reading it in full');
      }
      const skipThrough = after && after.value === d.name && after.key !== null ? Number(after.key) : 0;
      const before = await lstat(file).catch(() => undefined);
      if (!before) continue; // taken away meanwhile
      // Opened once, without following a link, and checked against the claimed entry: every read below goes through it.
      let handle: FileHandle;
      try {
        if (d.unsafe) throw new UnsafeEntryError(d.unsafe, file);
        handle = await openClaimed(file, d.identity);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        // A link or a swapped file is FILE_UNSAFE; a file that cannot be opened (permissions) is unreadable, as before.
        const unsafe = err instanceof UnsafeEntryError;
        const reason = d.unsafe ?? (unsafe ? err.message : `cannot be opened: ${causeText(err)}`);
        const code = unsafe ? SOURCE_CODES.fileUnsafe : SOURCE_CODES.fileUnreadable;
        logger.warn({ code, file: name }, `inbox file refused: ${reason}`);
        const position: CursorPosition = { value: d.name, key: indexKey(1) };
        yield { record: {}, key: name, position, refused: { code, message: `${name} refused: ${reason}` }, origin: { file: name } };
        pending.set(d.name, { delivery: unsafe ? { ...d, unsafe: reason } : d, last: position, error: reason, handedOut: 0, size: before.size, mtimeMs: before.mtimeMs, grew: false });
        continue;
      }
      let grew: boolean;
      try {
        grew = yield* readDelivery(d, file, handle, before, skipThrough, options, rejected);
      } finally {
        await handle.close();
      }
      // Later deliveries are read after this one is complete, so positions stay in arrival order.
      if (grew) break;
    }
    if (rejected.length > 0) {
      const files = rejected.splice(0);
      throw connectorError(connector, CONNECTOR_CODES.fileRejected, `${files.length} file(s) refused whole and moved to ${cfg.failedFolder}/, nothing of them applied: ${files.join(' | ')}. Fix the records and drop the file again.`);
    }
  }

  /** Read one opened delivery (only through `handle`); returns whether it grew, so later deliveries wait. */
  async function* readDelivery(d: Delivery, file: string, handle: FileHandle, before: Stats, skipThrough: number, options: ReadOptions, rejected: string[]): AsyncGenerator<SourceItem, boolean> {
    const name = d.original;
    if (cfg.onBadRecord === 'reject_file' && skipThrough === 0) {
      const problems = await badRows(handle, name);
      if (problems.length > 0) {
        const reason = `refused whole (onBadRecord: reject_file): ${problems.length} bad record(s), first ${problems.slice(0, 3).join('; ')}`;
        if (options.readOnly) {
          // Shown, not moved: the file is one refused item, and reading goes on with the next file.
          yield { record: {}, key: name, position: { value: d.name, key: indexKey(1) }, refused: { code: SOURCE_CODES.fileRejected, message: `${name} ${reason}` }, origin: { file: name } };
          return false;
        }
        await fail(d, reason, 0);
        rejected.push(`${name}: ${reason}`);
        return false;
      }
    }
    let index = 0;
    let yielded = 0;
    let last: CursorPosition | undefined;
    let error: string | undefined;
    let grew = false;
    // The record read last is handed out only once the next one was read, or the file ended unchanged:
    // a file still being written may end in half a record.
    let held: SourceItem | undefined;
    const handOut = (item: SourceItem): SourceItem => {
      yielded++;
      last = item.position;
      return item;
    };
    try {
      const decided = fileEncoding(handle, cfg);
      if (decided.warning) logger.warn({ file: name, encoding: decided.encoding, configured: cfg.encoding }, decided.warning);
      if (skipThrough === 0) await checkBytes(handle, decided.encoding);
      for await (const row of readers[cfg.format](handle, { ...cfg, encoding: decided.encoding })) {
        if (options.signal?.aborted) throw new AbortedError();
        index++;
        if (index <= skipThrough) continue;
        if (held) yield handOut(held);
        held = itemOf(name, index, row, { value: d.name, key: indexKey(index) });
      }
      // The bytes read ended where `before` says (else the file changed): their last one tells whether the last line is whole.
      grew = !(await unchangedSince(file, before.size, before.mtimeMs)) || (!(await quietFor(file, cfg)) && !(await endsWithLineBreak(handle, cfg, before.size)));
      if (held && !grew) yield handOut(held);
    } catch (err) {
      if (err instanceof AbortedError || options.signal?.aborted) throw err;
      // Half a record at the end of a file that is still being written is not an unreadable file.
      grew = !(await unchangedSince(file, before.size, before.mtimeMs)) || !(await quietFor(file, cfg));
      if (!grew) error = `${causeText(err)}`;
    }
    // The records before an error were read whole: the one held back goes out before the error.
    if (error !== undefined && held) yield handOut(held);
    const now = (await handle.stat().catch(() => undefined)) ?? before;
    if (error !== undefined) {
      // The file itself is a letter, so the run cannot end as succeeded over an unread file.
      const position: CursorPosition = { value: d.name, key: indexKey(index + 1) };
      const message = yielded === 0 && index === 0 ? `${name} cannot be read: ${error}` : `${name} stopped reading after record ${index}: ${error}; the records before it were read, the rest of the file was not`;
      yield { record: {}, key: name, position, refused: { code: SOURCE_CODES.fileUnreadable, message }, origin: { file: name } };
      pending.set(d.name, { delivery: d, last: position, error: yielded === 0 ? error : `${error} (after record ${index})`, handedOut: yielded, size: now.size, mtimeMs: now.mtimeMs, grew: false });
      logger.warn({ file: name, reason: error }, 'file stopped reading on an error; it moves to the failed folder once what was read is committed');
      return false;
    }
    if (grew) logger.info({ file: name, handedOut: yielded }, 'file grew while it was read; its last record waits, and the rest is read once the writer is done');
    if (last) pending.set(d.name, { delivery: d, last, handedOut: yielded, size: now.size, mtimeMs: now.mtimeMs, grew });
    else if (!grew && !options.readOnly && (await quietFor(file, cfg))) {
      // Empty, or every record already at or before the committed position: nothing left to settle.
      await archive(d, index);
      cleanReads.push({ file: name });
    }
    return grew;
  }

  /** Deliveries archived without a commit (nothing left to settle); reported with the next commit. */
  const cleanReads: SettledFile[] = [];

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
  async function badRows(file: FileHandle, name: string): Promise<string[]> {
    const out: string[] = [];
    let index = 0;
    try {
      for await (const row of readers[cfg.format](file, { ...cfg, encoding: fileEncoding(file, cfg).encoding })) {
        index++;
        const item = itemOf(name, index, row, { value: null, key: null });
        if (item.refused) out.push(item.refused.message);
      }
    } catch (err) {
      out.push(`the file cannot be read: ${causeText(err)}`);
    }
    return out;
  }

  async function commit(position: CursorPosition): Promise<SourceCommit> {
    const settledFiles = cleanReads.splice(0);
    for (const [claimed, file] of [...pending]) {
      if (comparePositions(file.last, position) > 0) continue;
      pending.delete(claimed);
      if (file.error !== undefined) {
        await fail(file.delivery, file.error, file.handedOut);
        continue;
      }
      // Grown while or since it was read, or written to a moment ago (a writer that keeps the file open may
      // go on): it stays in processing/, and the next read continues after `last` or archives it.
      const at = path.join(file.delivery.dir, file.delivery.name);
      if (file.grew || !(await unchangedSince(at, file.size, file.mtimeMs)) || !(await quietFor(at, cfg))) {
        logger.info({ file: file.delivery.original, handedOut: file.handedOut }, 'file was written to since or just before it was read; it stays in processing and the next read continues where this one stopped');
        continue;
      }
      await archive(file.delivery, file.handedOut);
      settledFiles.push({ file: file.delivery.original });
    }
    return { settledFiles };
  }

  return { kind: connector, read, commit, close: async () => undefined };
}
