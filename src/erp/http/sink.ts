/**
 * The HTTP sink: one JSON request per batch (or per record), carrying an idempotency key derived from
 * the batch id so a retried batch is recognised by the receiver; resolves only on a 2xx answer.
 */
import type { HttpConnection } from '../connection.js';
import type { ConnectorContext, Sink, SinkBatch } from '../types.js';
import { getPath } from '../values.js';
import type { HttpSinkConfig } from './config.js';
import { jsonClient, resolveUrl } from './request.js';

/** Fill `{record.FIELD}` placeholders in a path, URL-encoded so data cannot change the path's shape. */
export function fillPath(template: string, record: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{record\.([^}]+)\}/g, (_m, field: string) => {
    const v = getPath(record, field);
    return encodeURIComponent(v === undefined || v === null ? '' : String(v));
  });
}

/** Create a sink posting JSON to an endpoint. */
export async function httpSink(conn: HttpConnection, cfg: HttpSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const request = jsonClient(conn, ctx.logger, 'http');

  async function write(batch: SinkBatch): Promise<void> {
    if (!cfg.perRecord) {
      const body = cfg.wrapIn ? { [cfg.wrapIn]: batch.records } : batch.records;
      const url = resolveUrl(conn.baseUrl, cfg.path).toString();
      await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: batch.id }, body });
      return;
    }
    for (const [index, record] of batch.records.entries()) {
      const url = resolveUrl(conn.baseUrl, fillPath(cfg.path, record)).toString();
      const body = cfg.wrapIn ? { [cfg.wrapIn]: record } : record;
      await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: `${batch.id}:${index}` }, body });
    }
  }

  return { kind: 'http', write, close: async () => undefined };
}
