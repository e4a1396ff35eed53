/**
 * The HTTP source: pages through a REST list endpoint (offset, page, cursor token or next link).
 * With a `cursor` field, records are yielded in (cursor, key) order: records sharing a cursor value
 * are held until the value changes and sorted by key, so keyset `after` is exact; an API that returns
 * cursor values out of order is reported (CONNECTOR_ORDER_VIOLATION) instead of silently skipping.
 */
import { AbortedError } from '../../errors.js';
import type { HttpConnection } from '../connection.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import { rawExcerpt, SOURCE_CODES, type ConnectorContext, type CursorPosition, type ErpRecord, type ReadOptions, type Source, type SourceItem } from '../types.js';
import { comparePositions, compareValues, getPath, pathReader, recordSchema, toCursorValue } from '../values.js';
import { DEFAULT_LOOKBACK_MS, lookedBack } from '../sql/lookback.js';
import type { HttpSourceConfig } from './config.js';
import { jsonClient, resolveUrl } from './request.js';
import { answerRule, connectionSecrets } from './answer.js';
import { answerError } from './batchAnswer.js';

/** `<https://x/y?page=2>; rel="next", <…>; rel="last"` → the next URL. */
export function nextFromLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (m && /rel\s*=\s*"?next"?/i.test(m[2] as string)) return m[1];
  }
  return undefined;
}

/** Create a source over a paged JSON list endpoint. */
export async function httpSource(conn: HttpConnection, cfg: HttpSourceConfig, ctx: ConnectorContext): Promise<Source> {
  const request = jsonClient(conn, ctx.logger, 'http');
  const paging = cfg.paging;
  const rule = answerRule(cfg, 'source');

  /**
   * Where a read starts: after the stored cursor, or `lookback` before it when `after` is the
   * pipeline's incremental cursor and a timestamp (records stamped before the cursor but visible
   * only later). Never later than `after`.
   */
  function startOf(options: ReadOptions): CursorPosition | undefined {
    const after = cfg.cursor && options.after && options.after.value !== null ? options.after : undefined;
    if (!after || options.lookBack !== true) return after;
    const back = lookedBack(after, cfg.lookback ?? DEFAULT_LOOKBACK_MS);
    if (!back || typeof back.value !== 'string') return after;
    const from: CursorPosition = back;
    if (comparePositions(from, after) >= 0) return after;
    ctx.logger.debug({ cursor: after, from: from.value }, 'reading from before the cursor (lookback), so records committed late are not skipped');
    return from;
  }

  function firstUrl(from: CursorPosition | undefined, options: ReadOptions, pageSize: number): URL {
    const url = resolveUrl(conn.baseUrl, cfg.path);
    for (const [k, v] of Object.entries(cfg.query)) url.searchParams.set(k, String(v));
    if (cfg.sinceParam && from) url.searchParams.set(cfg.sinceParam, String(from.value));
    if (cfg.untilParam && options.until !== undefined && options.until !== null) url.searchParams.set(cfg.untilParam, String(options.until));
    if (paging.style === 'offset') { url.searchParams.set(paging.offsetParam, '0'); url.searchParams.set(paging.limitParam, String(pageSize)); }
    if (paging.style === 'page') { url.searchParams.set(paging.pageParam, String(paging.firstPage)); url.searchParams.set(paging.sizeParam, String(pageSize)); }
    if ((paging.style === 'cursor' || paging.style === 'next-link') && paging.limitParam) url.searchParams.set(paging.limitParam, String(pageSize));
    return url;
  }

  /** The next page's URL, or undefined after the last page. */
  function nextUrl(url: URL, body: unknown, headers: Headers, count: number, pageSize: number): URL | undefined {
    if (count === 0 || paging.style === 'none') return undefined;
    const next = new URL(url);
    if (paging.style === 'offset') {
      if (count < pageSize) return undefined;
      next.searchParams.set(paging.offsetParam, String(Number(url.searchParams.get(paging.offsetParam)) + count));
      return next;
    }
    if (paging.style === 'page') {
      if (count < pageSize) return undefined;
      next.searchParams.set(paging.pageParam, String(Number(url.searchParams.get(paging.pageParam)) + 1));
      return next;
    }
    if (paging.style === 'cursor') {
      const token = getPath(body, paging.nextPath);
      if (token === undefined || token === null || token === '') return undefined;
      next.searchParams.set(paging.cursorParam, String(token));
      return next;
    }
    const link = paging.nextPath ? getPath(body, paging.nextPath) : nextFromLink(headers.get('link'));
    if (typeof link !== 'string' || link === '') return undefined;
    const target = new URL(link, url);
    // The API names the next page; credentials go with it, so only within the API's own origin.
    if (target.origin !== url.origin) {
      throw connectorError('http', CONNECTOR_CODES.httpError, `the next-page link of ${url.origin}${url.pathname} points at ${target.origin}, another origin: not followed, so the connection's credentials stay home. Read the rest from the API's own address, or check the API's paging settings.`, { details: { next: target.origin } });
    }
    return target;
  }

  async function* read(options: ReadOptions): AsyncGenerator<SourceItem> {
    const pageSize = options.pageSize ?? 100;
    // The stored cursor, or the lookback's start before it: records at or before it are not handed out.
    const after = startOf(options);
    const until = cfg.cursor ? options.until : undefined;
    let url: URL | undefined = firstUrl(after, options, pageSize);
    let ties: SourceItem[] = [];
    let pages = 0;
    let lastOut: CursorPosition | undefined = after;
    const flush = function* () {
      ties.sort((a, b) => compareValues(a.key, b.key));
      for (const it of ties) {
        if (after && comparePositions(it.position, after) <= 0) continue;
        lastOut = it.position;
        yield it;
      }
      ties = [];
    };
    let element = 0;
    // A record the API sent unusable (not an object, no key or cursor) is a dead letter of its own, at the last position handed out; the page goes on.
    const refused = (raw: unknown, key: string | undefined, message: string): SourceItem => ({
      record: recordSchema.safeParse(raw).success && !Array.isArray(raw) ? (raw as ErpRecord) : {},
      key: key ?? `${cfg.path}#record ${element}`,
      position: lastOut ?? { value: null, key: null },
      refused: { code: key === undefined ? SOURCE_CODES.keyMissing : SOURCE_CODES.badRow, message },
      origin: { element, raw: rawExcerpt(JSON.stringify(raw) ?? String(raw)) },
    });
    const keyOf = pathReader(cfg.key);
    const cursorOf = pathReader(cfg.cursor);
    while (url) {
      if (options.signal?.aborted) throw new AbortedError();
      if (++pages > cfg.maxPages) throw connectorError('http', CONNECTOR_CODES.httpError, `${cfg.path} returned more than maxPages (${cfg.maxPages}) pages; check the paging settings.`);
      const res = await request({ url: url.toString(), method: 'GET', headers: cfg.headers, signal: options.signal });
      // An error envelope is a failed read, never a page of zero records (the cursor would move on).
      const verdict = await rule.judge(res.body, { envelope: true, rules: true, guess: 'unclear' });
      if (!verdict.ok) throw answerError(`GET ${url.pathname}`, verdict, res.body, '', '; the read stops here, the cursor stays where it was', connectionSecrets(conn));
      const list = getPath(res.body, cfg.recordsPath);
      if (!Array.isArray(list)) {
        throw connectorError('http', CONNECTOR_CODES.httpError, `${url.pathname} returned no array at ${cfg.recordsPath ? `recordsPath ${cfg.recordsPath}` : 'the top level'}; set recordsPath to where the records are.`);
      }
      for (const raw of list) {
        element++;
        const parsed = recordSchema.safeParse(raw);
        if (!parsed.success || Array.isArray(raw)) {
          yield refused(raw, undefined, `${url.pathname} returned a record that is not a JSON object`);
          continue;
        }
        const record: ErpRecord = parsed.data;
        const keyValue = keyOf(record);
        if (keyValue === undefined || keyValue === null || keyValue === '' || typeof keyValue === 'object') {
          yield refused(raw, undefined, `${url.pathname} returned a record without key ${cfg.key}`);
          continue;
        }
        const key = String(keyValue);
        if (!cfg.cursor) {
          lastOut = { value: null, key };
          yield { record, key, position: lastOut };
          continue;
        }
        const value = toCursorValue(cursorOf(record));
        if (value === null) {
          yield refused(raw, key, `record ${key} has no cursor value at ${cfg.cursor}`);
          continue;
        }
        if (until !== undefined && until !== null && compareValues(value, until) > 0) {
          // Sorted ascending: nothing after this can be inside the range.
          yield* flush();
          return;
        }
        const position: CursorPosition = { value, key };
        const tie = ties[0];
        if (tie && compareValues(value, tie.position.value) !== 0) {
          if (compareValues(value, tie.position.value) < 0) {
            throw connectorError('http', CONNECTOR_CODES.orderViolation, `${cfg.path} returned ${cfg.cursor}=${JSON.stringify(value)} after ${JSON.stringify(tie.position.value)}; the API must sort ascending by ${cfg.cursor} (add its sort parameter under query) or records could be skipped.`, { erpKey: key });
          }
          yield* flush();
        }
        ties.push({ record, key, position });
      }
      url = nextUrl(url, res.body, res.headers, list.length, pageSize);
    }
    yield* flush();
  }

  return { kind: 'http', readsAll: true, read, commit: async () => undefined, close: async () => undefined };
}
