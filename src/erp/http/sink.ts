/**
 * The HTTP sink: one JSON request per batch (or per record), carrying an idempotency key derived from
 * the batch id so a retried batch is recognised by the receiver. A 2xx answer is a success only when
 * its body says so (answer.ts): per record, or per result of a batch call, a refused record is an
 * outcome of its own; an answer that is an error as a whole rejects the batch.
 */
import { ConfigError } from '../../errors.js';
import type { HttpConnection } from '../connection.js';
import type { ConnectorContext, Sink, SinkBatch, SinkOutcome, SinkResult } from '../types.js';
import { pathReader } from '../values.js';
import { answerError, judgeBatch, refusal } from './batchAnswer.js';
import { answerRule, compileRuleExpression, connectionSecrets } from './answer.js';
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

/** A body template with its placeholders (`"$records"`, `"$record"`, `"$index"`, `"$batchId"`: whole strings only) replaced. */
export function fill(template: unknown, values: Readonly<Record<string, unknown>>): unknown {
  if (typeof template === 'string') return Object.hasOwn(values, template) ? values[template] : template;
  if (Array.isArray(template)) return template.map((t) => fill(t, values));
  if (typeof template === 'object' && template !== null) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fill(v, values)]));
  return template;
}

/** Create a sink posting JSON to an endpoint. */
export async function httpSink(conn: HttpConnection, cfg: HttpSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const request = jsonClient(conn, ctx.logger, 'http');
  const pathOf = pathTemplate(cfg.path);
  const rule = answerRule(cfg, 'sink');
  // Each answer of `perRecord` decides its record already; a setting that would do nothing is refused, not ignored.
  if (cfg.body !== undefined && cfg.wrapIn !== undefined) throw new ConfigError('sink.body and sink.wrapIn both say what the body is: keep one (body: { orders: "$records" } is wrapIn: orders)', { key: 'sink.body' });
  if (cfg.perRecord && cfg.results !== undefined) throw new ConfigError('sink.results applies to batch calls; with perRecord: true each answer decides its own record: remove results, or set perRecord: false', { key: 'sink.results' });
  const results = cfg.results === undefined ? undefined : compileRuleExpression('sink', 'results', cfg.results);
  const secrets = connectionSecrets(conn);

  async function write(batch: SinkBatch): Promise<void | SinkResult> {
    if (!cfg.perRecord) {
      const body = cfg.body !== undefined ? fill(cfg.body, { $records: batch.records, $batchId: batch.id }) : cfg.wrapIn ? { [cfg.wrapIn]: batch.records } : batch.records;
      const url = resolveUrl(conn.baseUrl, cfg.path).toString();
      const res = await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: batch.id }, body });
      return judgeBatch({ rule, results, resultsText: cfg.results, secrets }, `${cfg.method} ${url}`, batch.records, body, res.body);
    }
    // One answer per record decides that record: a refused one is lettered and the others go on,
    // since those sent before it are written already (a throw would send them again).
    const outcomes: SinkOutcome[] = [];
    for (const [index, record] of batch.records.entries()) {
      const url = resolveUrl(conn.baseUrl, pathOf(record)).toString();
      const body = cfg.body !== undefined ? fill(cfg.body, { $record: record, $index: index, $batchId: batch.id }) : cfg.wrapIn ? { [cfg.wrapIn]: record } : record;
      const res = await request({ url, method: cfg.method, headers: { ...cfg.headers, [cfg.idempotencyHeader]: `${batch.id}:${index}` }, body });
      const verdict = await rule.judge(res.body, { envelope: true, rules: true, guess: 'unclear' });
      const call = `${cfg.method} ${url}`;
      if (verdict.ok) outcomes.push(res.status === 201 ? { kind: 'created' } : { kind: 'written' });
      else if (verdict.about === 'record') outcomes.push(refusal(call, verdict.message, res.body, secrets));
      else throw answerError(call, verdict, res.body, index > 0 ? ` (the ${index} record(s) before it in this batch were accepted and are sent again on the next run)` : '', undefined, secrets);
    }
    return { outcomes };
  }

  return { kind: 'http', target: `http ${cfg.method} ${resolveUrl(conn.baseUrl, cfg.path).pathname}`, write, close: async () => undefined };
}
