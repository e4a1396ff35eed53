/**
 * What an HTTP answer says. A 2xx status is not a success by itself: Tryton, Odoo and every
 * JSON-RPC 2.0 server answer their errors with 200 and an `error` member, and a sink that took
 * that for a delivery lost the record without a word (issue 41). An answer is a success only when
 * the declared rule says so (`protocol: jsonrpc`, `successWhen`, `errorWhen`); without a rule, a
 * body that looks like an error envelope is not guessed either way, it is refused with the rule to set.
 * Rules are JSONata evaluated on the mapping's budget (src/mapping/expr.ts), so a runaway rule
 * fails its answer instead of holding the event loop.
 */
import { ConfigError, ConnectorError } from '../../errors.js';
import type { CompiledExpression } from '../../mapping/env.js';
import { compileExpression } from '../../mapping/expr.js';

/** Stable codes of answers that are not a success. */
export const ANSWER_CODES = {
  /** A 2xx body that looks like an error envelope while no success rule is set. */
  unclear: 'HTTP_ANSWER_UNCLEAR',
  /** The answer says the call failed (the server unavailable, a session, a wrong method), not a record. */
  failed: 'HTTP_ANSWER_ERROR',
  /** One record's answer is an error: that record is lettered with the server's message. */
  recordRefused: 'SINK_RECORD_REFUSED',
  /** A rule of the config could not be evaluated (its budget, a runtime error). */
  rule: 'HTTP_ANSWER_RULE',
} as const;

/** The rule as configured (the shared part of the source and sink schemas). */
export interface AnswerRuleConfig {
  readonly protocol?: 'jsonrpc' | undefined;
  readonly successWhen?: string | undefined;
  readonly errorWhen?: string | undefined;
  readonly unavailableWhen?: string | undefined;
  readonly errorMessage?: string | undefined;
}

/** What one answer (or one record's result in it) says. */
export type Verdict =
  | { readonly ok: true }
  /** `record`: about the data sent; `call`: the call failed whatever was sent; `unclear`: no rule tells. */
  | { readonly ok: false; readonly about: 'record' | 'call' | 'unclear'; readonly message: string };

/** Which checks apply where an answer is judged. */
export interface JudgeOptions {
  /** Check the JSON-RPC envelope (`error` vs `result`) when `protocol: jsonrpc`. */
  readonly envelope: boolean;
  /** Evaluate successWhen/errorWhen. */
  readonly rules: boolean;
  /** Without any rule, an error-looking body is `unclear` (refused), a `record` error (per-record results), or not looked at. */
  readonly guess: 'unclear' | 'record' | 'off';
  /** The guess also looks into the elements of an array body (per-record answers; never a source's records). */
  readonly guessInArrays?: boolean;
}

/** A compiled rule. */
export interface AnswerRule {
  /** True when the config declares how to tell success (protocol, successWhen or errorWhen). */
  readonly declared: boolean;
  readonly protocol?: 'jsonrpc';
  judge(answer: unknown, options: JudgeOptions): Promise<Verdict>;
  /** Evaluate a JSONata expression of the config (e.g. `results`) on the answer, on the same budget. */
  evaluate(expression: CompiledExpression, key: string, answer: unknown): Promise<unknown>;
}

/** The advice every unclear answer carries. */
export const RULE_ADVICE =
  'set the rule that tells its success: `protocol: jsonrpc` for a JSON-RPC server (Tryton, Odoo), `successWhen:` or `errorWhen:` (JSONata over the body, e.g. `errorWhen: "error != null"`), or `errorWhen: "false"` to accept such bodies on purpose';

/** Compile one JSONata text of the config; a syntax error is a ConfigError naming the key. */
export function compileRuleExpression(part: 'source' | 'sink', key: string, text: string): CompiledExpression {
  try {
    return compileExpression(text);
  } catch (err) {
    throw new ConfigError(`${part}.${key} is not a valid JSONata expression (${(err as Error).message}): ${text}`, { key: `${part}.${key}` });
  }
}

/** Compile the answer rule of a source or sink config. */
export function answerRule(cfg: AnswerRuleConfig, part: 'source' | 'sink'): AnswerRule {
  const compile = (key: keyof AnswerRuleConfig) => {
    const text = cfg[key];
    return text === undefined || key === 'protocol' ? undefined : compileRuleExpression(part, key, text);
  };
  const successWhen = compile('successWhen');
  const errorWhen = compile('errorWhen');
  const unavailableWhen = compile('unavailableWhen');
  const errorMessage = compile('errorMessage');
  const declared = cfg.protocol !== undefined || successWhen !== undefined || errorWhen !== undefined;

  async function evaluate(expression: CompiledExpression, key: string, answer: unknown): Promise<unknown> {
    try {
      return await expression.evaluate(answer);
    } catch (err) {
      throw new ConnectorError(ANSWER_CODES.rule, `${part}.${key} failed on the answer ${excerpt(answer)}: ${(err as { message?: string }).message ?? String(err)}; fix the expression`, { connector: 'http', details: { key } });
    }
  }

  async function judge(answer: unknown, o: JudgeOptions): Promise<Verdict> {
    let message: string | undefined;
    let about: 'record' | 'call' = 'record';
    if (o.envelope && cfg.protocol === 'jsonrpc') {
      const rpc = rpcError(answer);
      if (rpc === undefined) return { ok: false, about: 'unclear', message: `the answer is not a JSON-RPC answer (neither \`result\` nor \`error\`): ${excerpt(answer)}` };
      if (rpc !== null) ({ message, about } = rpc);
    }
    if (message === undefined && o.rules && errorWhen && truthy(await evaluate(errorWhen, 'errorWhen', answer))) message = guessMessage(answer) ?? `errorWhen holds for ${excerpt(answer)}`;
    if (message === undefined && o.rules && successWhen && !truthy(await evaluate(successWhen, 'successWhen', answer))) message = guessMessage(answer) ?? `successWhen does not hold for ${excerpt(answer)}`;
    if (message === undefined && !declared && o.guess !== 'off') {
      const looks = looksLikeError(answer, o.guessInArrays === true);
      if (looks !== undefined) {
        if (o.guess === 'record') return { ok: false, about: 'record', message: `${looks} (taken as an error because it looks like one; say it with successWhen/errorWhen)` };
        return { ok: false, about: 'unclear', message: `the answer looks like an error (${looks}) but no rule says how this server tells success: ${RULE_ADVICE}` };
      }
    }
    if (message === undefined) return { ok: true };
    if (errorMessage) {
      const text = await evaluate(errorMessage, 'errorMessage', answer);
      if (text !== undefined && text !== null && text !== '') message = typeof text === 'string' ? text : JSON.stringify(text);
    }
    if (unavailableWhen && truthy(await evaluate(unavailableWhen, 'unavailableWhen', answer))) about = 'call';
    return { ok: false, about, message };
  }

  return { declared, ...(cfg.protocol ? { protocol: cfg.protocol } : {}), judge, evaluate };
}

/** JSON-RPC 2.0 codes about the call itself (parse error, invalid request, method not found), and Odoo's "session expired". */
const RPC_CALL_CODES = new Set([-32700, -32600, -32601, 100]);
/** Tryton's exceptions that are about the session or the server, not the data (trytond/exceptions.py). */
const TRYTON_CALL_ERRORS = new Set(['NotLogged', 'LoginException', 'RateLimitException', 'ConcurrencyException']);
/** Tryton's own exception names; any other `[text, traceback]` is an exception of the server's code. */
const TRYTON_ERRORS = new Set([...TRYTON_CALL_ERRORS, 'UserError', 'UserWarning']);

/**
 * The error of a JSON-RPC answer: null for a success (`result`), undefined for a body that is no
 * JSON-RPC answer. Tryton answers `error: [name, args]`, JSON-RPC 2.0 (Odoo) `error: {code, message, data}`.
 */
export function rpcError(answer: unknown): { message: string; about: 'record' | 'call' } | null | undefined {
  if (!isObject(answer) || (!('result' in answer) && !('error' in answer))) return undefined;
  const error = answer.error;
  if (error === undefined || error === null) return 'result' in answer ? null : undefined;
  if (Array.isArray(error)) {
    const [name, args] = error as unknown[];
    if (typeof name === 'string' && TRYTON_ERRORS.has(name)) {
      const parts = (Array.isArray(args) ? args : [args]).filter((a): a is string => typeof a === 'string' && a.trim() !== '');
      return { message: `${name}: ${parts.join(' ') || excerpt(args)}`, about: TRYTON_CALL_ERRORS.has(name) ? 'call' : 'record' };
    }
    // An exception of the server's code: Tryton sends its text and the traceback; the text is the message.
    return { message: typeof name === 'string' ? name : excerpt(error), about: 'record' };
  }
  if (isObject(error)) {
    const data = isObject(error.data) ? error.data : undefined;
    const detail = typeof data?.message === 'string' && data.message !== error.message ? data.message : undefined;
    const name = typeof data?.name === 'string' ? data.name : undefined;
    const text = [typeof error.message === 'string' ? error.message : excerpt(error), detail].filter(Boolean).join(': ');
    const call = (typeof error.code === 'number' && RPC_CALL_CODES.has(error.code)) || (name !== undefined && /SessionExpired|AccessDenied/.test(name));
    return { message: `${text}${typeof error.code === 'number' ? ` (code ${error.code}${name ? `, ${name}` : ''})` : ''}`, about: call ? 'call' : 'record' };
  }
  return { message: String(error), about: 'record' };
}

/**
 * Why a body looks like an error envelope, or undefined: an `error` member that is set, `errors`
 * not empty, `faultCode`, `success: false`, `ok: false`, `status: "error"`.
 */
export function looksLikeError(body: unknown, inArrays: boolean): string | undefined {
  if (Array.isArray(body)) {
    if (!inArrays) return undefined;
    for (const [i, el] of body.entries()) {
      const why = looksLikeError(el, false);
      if (why !== undefined) return `element ${i + 1}: ${why}`;
    }
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const message = guessMessage(body);
  const say = (what: string) => (message ? `${what}: ${message}` : what);
  // `error: 0` / `false` / `""` / null is how some APIs say "no error".
  if ('error' in body && body.error !== null && body.error !== false && body.error !== '' && body.error !== 0) return say('`error` is set');
  const errors = body.errors;
  if (errors !== undefined && errors !== null && errors !== false && (Array.isArray(errors) ? errors.length > 0 : isObject(errors) ? Object.keys(errors).length > 0 : errors !== '')) return say('`errors` is not empty');
  if ('faultCode' in body || 'faultString' in body) return say('it carries a `faultCode`');
  if (body.success === false) return say('`success` is false');
  if (body.ok === false) return say('`ok` is false');
  if (typeof body.status === 'string' && /^(error|fail|failed|failure)$/i.test(body.status)) return say(`\`status\` is "${body.status}"`);
  return undefined;
}

/** The server's message in a body, as the common envelopes write it. */
function guessMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const rpc = rpcError(body);
  if (rpc) return rpc.message;
  const text = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v.trim() === '' ? undefined : v;
    if (Array.isArray(v)) return v.map(text).filter(Boolean).join('; ') || undefined;
    if (isObject(v)) return text(v.message ?? v.msg ?? v.detail ?? v.description) ?? excerpt(v);
    return undefined;
  };
  return text(body.error) ?? text(body.errors) ?? text(body.faultString) ?? text(body.message) ?? text(body.detail);
}

/** Headers whose values are not secrets (docs/connectors.md, "HTTP JSON APIs"). */
const PLAIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

/** What messages about a connection's answers must not carry: its auth value and header values. */
export function connectionSecrets(conn: { readonly auth?: { readonly value: string } | undefined; readonly headers: Readonly<Record<string, string>> }): string[] {
  return [conn.auth?.value, ...Object.entries(conn.headers).filter(([k]) => !PLAIN_HEADERS.has(k.toLowerCase())).map(([, v]) => v)].filter((s): s is string => s !== undefined);
}

/** JSONata's truthiness ($boolean): empty strings, arrays, objects, zero and undefined are false. */
export function truthy(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.some(truthy);
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A body cut for a message. */
export function excerpt(v: unknown, max = 300): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
