/**
 * The HTTP sink: one JSON request per batch (or per record), carrying an idempotency key derived from
 * the batch id so a retried batch is recognised by the receiver; resolves only on a 2xx answer.
 */
import type { HttpConnection } from '../connection.js';
import type { ConnectorContext, Sink, SinkBatch } from '../types.js';
import { pathReader } from '../values.js';
import type { HttpSinkConfig } from './config.js';
import { jsonClient, resolveUrl } from './request.js';

/**
 * A path template with `{record.FIELD}` placeholders, parsed once: the returned function fills them
 * from a record, URL-encoded so data cannot change the path's shape.
 */
export function pathTemplate(template: string): (record: Readonly<Record<string, unknown>>) => string {
  const parts = template.split(/\{record\.([^}]+)\}/);
  // split with a capture group: even entries are literal text, odd entries field paths.
  const readers = parts.map((part, i) => (i % 2 === 1 ? pathReader(part) : undefined));
  return (record) =>
    parts
      .map((part, i) => {
        const read = readers[i];
        if (!read) return part;
        const v = read(record);
        return encodeURIComponent(v === undefined || v === null ? '' : String(v));
      })
      .join('');
}

/** Create a sink posting JSON to an endpoint. */
export async function httpSink(conn: HttpConnection, cfg: HttpSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const request = jsonClient(conn, ctx.logger, 'http');
  const pathOf = pathTemplate(cfg.path);

  async function write(batch: SinkBatch): Promise<void> {
    if (!cfg.perRecord) {
      const body = cfg.wrapIn ? { [cfg.wrapIn]: batch.records } : batch.records;
      const url = resolveUrl(conn.baseUrl, cfg.path).toString();
      await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: batch.id }, body });
      return;
    }
    for (const [index, record] of batch.records.entries()) {
      const url = resolveUrl(conn.baseUrl, pathOf(record)).toString();
      const body = cfg.wrapIn ? { [cfg.wrapIn]: record } : record;
      await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: `${batch.id}:${index}` }, body });
    }
  }

  return { kind: 'http', write, close: async () => undefined };
}
