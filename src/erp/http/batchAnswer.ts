/**
 * The answer to one batch call, record by record: per-record results (`results:`, or a JSON-RPC
 * batch answer matched by `id`) decide each record; an answer that is an error as a whole rejects
 * the batch, as one record's data error (CONNECTOR_INVALID_RECORD: the pipeline halves the batch
 * until the record is alone, src/pipeline/pullDelivery.ts) or as a failed call (the run fails).
 */
import { ConnectorError } from '../../errors.js';
import { scrubSecrets } from '../../log.js';
import type { CompiledExpression } from '../../mapping/env.js';
import { CONNECTOR_CODES } from '../errors.js';
import type { ErpRecord, SinkOutcome, SinkResult } from '../types.js';
import { ANSWER_CODES, excerpt, rpcError, type AnswerRule, type Verdict } from './answer.js';

/** What judges a batch answer. */
export interface BatchRules {
  readonly rule: AnswerRule;
  /** The compiled `results` expression, and its text for messages. */
  readonly results?: CompiledExpression | undefined;
  readonly resultsText?: string | undefined;
  /** The connection's secrets, kept out of messages (a server may echo what it was sent). */
  readonly secrets?: readonly (string | undefined)[];
}

/** A record the server refused: its outcome, carrying the server's message. */
export function refusal(call: string, message: string, answer: unknown, secrets: readonly (string | undefined)[] = []): Extract<SinkOutcome, { kind: 'refused' }> {
  return {
    kind: 'refused',
    code: ANSWER_CODES.recordRefused,
    message: scrubSecrets(`${call} refused the record: ${message.replace(/[.\s]+$/, '')}. Fix the data or the mapping, then \`shopsync dlq retry\``, secrets),
    details: { answer: scrubSecrets(excerpt(answer, 1000), secrets) },
  };
}

/** An answer that fails the batch: a failed call, or one no rule can read. */
export function answerError(call: string, verdict: Extract<Verdict, { ok: false }>, answer: unknown, note = '', after = '; nothing of it is counted delivered', secrets: readonly (string | undefined)[] = []): ConnectorError {
  const code = verdict.about === 'unclear' ? ANSWER_CODES.unclear : ANSWER_CODES.failed;
  const what = verdict.about === 'unclear' ? `${call} answered 2xx, not taken as a success: ${verdict.message}` : `${call} answered an error: ${verdict.message}`;
  return new ConnectorError(code, scrubSecrets(`${what}${note}${after}`, secrets), { connector: 'http', details: { answer: scrubSecrets(excerpt(answer, 1000), secrets) } });
}

/** Judge the answer to a batch call of `records` (sent as `sent`). Resolves undefined when every record is written without more to say. */
export async function judgeBatch(rules: BatchRules, call: string, records: readonly ErpRecord[], sent: unknown, answer: unknown): Promise<SinkResult | undefined> {
  const { rule } = rules;
  const secrets = rules.secrets ?? [];
  const fail = (verdict: Extract<Verdict, { ok: false }>, note = '') => answerError(call, verdict, answer, note, undefined, secrets);
  /** The whole answer is an error: one record's data (split), the call's, or unreadable. */
  const whole = (verdict: Extract<Verdict, { ok: false }>): SinkResult => {
    if (verdict.about !== 'record') throw fail(verdict);
    if (records.length === 1) return { outcomes: [refusal(call, verdict.message, answer, secrets)] };
    throw new ConnectorError(CONNECTOR_CODES.invalidRecord, scrubSecrets(`${call} refused the batch of ${records.length}: ${verdict.message}`, secrets), { connector: 'http', details: { answer: scrubSecrets(excerpt(answer, 1000), secrets) } });
  };

  let list: readonly unknown[];
  let envelopes: boolean;
  if (rules.results) {
    if (rule.protocol === 'jsonrpc' && !Array.isArray(answer)) {
      const verdict = await rule.judge(answer, { envelope: true, rules: false, guess: 'off' });
      if (!verdict.ok) return whole(verdict);
    }
    const found = await rule.evaluate(rules.results, 'results', answer);
    if (!Array.isArray(found)) {
      const verdict = await rule.judge(answer, { envelope: false, rules: true, guess: 'unclear', guessInArrays: true });
      if (!verdict.ok) return whole(verdict);
      throw fail({ ok: false, about: 'unclear', message: `no per-record array at results \`${rules.resultsText}\` in ${excerpt(answer)}; point \`results\` at the array holding one result per record` });
    }
    list = found;
    envelopes = false;
  } else if (rule.protocol === 'jsonrpc' && Array.isArray(answer)) {
    list = byId(records.length, sent, answer, fail);
    envelopes = true;
  } else {
    const verdict = await rule.judge(answer, { envelope: true, rules: true, guess: 'unclear', guessInArrays: true });
    return verdict.ok ? undefined : whole(verdict);
  }

  if (list.length !== records.length) {
    throw fail({ ok: false, about: 'unclear', message: `${list.length} result(s) for ${records.length} record(s), so which record each belongs to is unknown` });
  }
  const outcomes: SinkOutcome[] = [];
  for (const [i, result] of list.entries()) {
    // A JSON-RPC answer among the results is judged as one; plain results (Tryton's new ids) by the rules.
    const envelope = envelopes || (rule.protocol === 'jsonrpc' && rpcError(result) !== undefined);
    const verdict = await rule.judge(result, { envelope, rules: true, guess: 'record' });
    if (verdict.ok) outcomes.push({ kind: 'written' });
    else if (verdict.about === 'record') outcomes.push(refusal(`${call} (record ${i + 1} of ${records.length})`, verdict.message, result, secrets));
    else throw fail(verdict, ` (record ${i + 1} of ${records.length})`);
  }
  return { outcomes };
}

/**
 * A JSON-RPC batch answer in the order of the records: by the `id` of each call sent (a server may
 * answer in any order), or by position when the calls carry no ids. An answer with a null id is the
 * server refusing the batch itself (invalid request).
 */
function byId(count: number, sent: unknown, answer: readonly unknown[], fail: (verdict: Extract<Verdict, { ok: false }>) => ConnectorError): unknown[] {
  const unidentified = answer.find((a) => isObject(a) && (a.id === null || a.id === undefined) && rpcError(a));
  if (unidentified) throw fail({ ok: false, about: 'call', message: rpcError(unidentified)!.message });
  const ids = Array.isArray(sent) && sent.length === count ? sent.map((s) => (isObject(s) && (typeof s.id === 'string' || typeof s.id === 'number') ? String(s.id) : undefined)) : [];
  if (ids.length !== count || ids.some((id) => id === undefined) || new Set(ids).size !== count) return [...answer];
  const byKey = new Map(answer.filter(isObject).map((a) => [String(a.id), a]));
  return ids.map((id) => {
    const found = byKey.get(id!);
    if (found === undefined) throw fail({ ok: false, about: 'unclear', message: `no answer for the call with id ${id}` });
    return found;
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
