/**
 * The order error envelope: an order request is all-or-nothing, so any failing order rejects the
 * whole request (the transaction rolls back) with `{success:false, api_version, error:{code, message, details:{index…}}}`.
 */
import { SandboxHttpError } from '../../handler.js';
import type { MessageOut } from '../../kit.js';

const STATUS: Readonly<Record<string, number>> = {
  INVALID_PAYLOAD: 400,
  CUSTOMER_NOT_FOUND: 404,
  PRODUCT_NOT_FOUND: 404,
  'Not found': 404,
  TOTAL_DRIFT: 422,
  STOCK_INSUFFICIENT: 409,
  DUPLICATE_EXTERNAL_REFERENCE: 409,
};

/** Reject the whole order request. */
export function orderError(code: keyof typeof STATUS | string, message: string, index: number, details: Readonly<Record<string, unknown>> = {}): never {
  throw new SandboxHttpError(STATUS[code] ?? 400, code, message, { index, ...details });
}

/** An order warning: an entry of the write answer's warnings[]. */
export type OrderWarning = MessageOut;
