/**
 * Errors of JSON-RPC ERPs. JSON-RPC answers a failed call with HTTP 200 and an `error` member, so a
 * call is a success only when its answer carries `result`; an error answer becomes an RpcError that
 * says whether it concerns the data sent (a record the ERP refuses) or the connection (a login).
 */
import { ConnectorError } from '../../errors.js';
import { scrubSecrets } from '../../log.js';

/** Stable codes of the JSON-RPC connector; the pipeline and the sink branch on these, never on messages. */
export const JSONRPC_CODES = {
  /** No answer (network, timeout), or 5xx/429 after every retry: the run fails and is tried again later. */
  unreachable: 'JSONRPC_UNREACHABLE',
  /** The login was refused (wrong password, unknown database or user): the run fails. */
  loginFailed: 'JSONRPC_LOGIN_FAILED',
  /** A call the run needs (a search, a model check) answered an error: the run fails. */
  callFailed: 'JSONRPC_CALL_FAILED',
  /** The ERP refused one record (a required field, a validation): that record is dead-lettered with the ERP's message. */
  recordRefused: 'JSONRPC_RECORD_REFUSED',
  /** A mapped record has no value for the sink's reference: it could not be created idempotently, so it is not created. */
  referenceMissing: 'JSONRPC_REFERENCE_MISSING',
  /**
   * The shop cancelled an order whose ERP record is past the states the sink may cancel (a confirmed,
   * shipped sale), or the ERP's cancel button left it uncancelled: the record is untouched and the
   * order a dead letter naming it; cancel (or return) it in the ERP, then retry or drop the letter.
   */
  cancelRefused: 'JSONRPC_CANCEL_REFUSED',
  /** The sink's model or one of its fields does not exist on the server, or the user may not create there. */
  modelMismatch: 'JSONRPC_MODEL_MISMATCH',
} as const;

/** One of the JSON-RPC connector's codes. */
export type JsonrpcCode = (typeof JSONRPC_CODES)[keyof typeof JSONRPC_CODES];

/** An `error` answer, as the dialect reads it. */
export interface RpcFault {
  /** The ERP's exception type: `UserError`, `odoo.exceptions.ValidationError`… */
  readonly type: string;
  /** The ERP's message (with its description, when it gives one). */
  readonly message: string;
  /** The error is about the session or the login, not the data: log in again (once), else fail the run. */
  readonly session: boolean;
}

/** A failed JSON-RPC call; `fault` is set when the server answered with an `error` member. */
export class RpcError extends ConnectorError {
  readonly fault?: RpcFault;

  constructor(code: JsonrpcCode | string, message: string, options: { fault?: RpcFault; cause?: unknown; details?: Record<string, unknown>; secrets?: readonly (string | undefined)[] } = {}) {
    super(code, scrubSecrets(message, options.secrets), { connector: 'jsonrpc', cause: options.cause, details: options.details });
    this.fault = options.fault;
  }
}
