/**
 * Building blocks for the resource schemas.
 *
 * Write schemas are *strict*: shopsync must never send a field the shop would silently ignore
 * (a typo like `products_modle`), a decimal in comma notation the shop would misread, or a
 * string where the API wants a JSON boolean. Record (export) schemas are *loose*: a newer shop
 * may return more than we know, and that must not break a pull.
 */
import { z } from 'zod';

/** Integer id. */
export const id = z.number().int();

/** Positive integer id (> 0). */
export const positiveId = z.number().int().positive();

/** A decimal the shop reads correctly: a number, or a string in point notation ('50.5', never '50,5'). */
export const decimal = z.union([
  z.number().finite(),
  z.string().regex(/^-?\d+(\.\d+)?$/, { message: "expected a decimal in point notation like '50.5' (a comma would be misread by the shop)" }),
]);

/** A decimal as the shop exports it (number or string). */
export const decimalOut = z.union([z.number(), z.string()]);

/** Flag sent as 0 or 1. */
export const flag01 = z.union([z.literal(0), z.literal(1)]);

/** Flag as exported (0/1 as number or string, or boolean). */
export const flagOut = z.union([z.number(), z.string(), z.boolean()]);

/** A JSON boolean; the shop treats 'true' and 1 as not set. */
export const strictBoolean = z.boolean({ message: 'expected a JSON boolean true/false (the shop ignores "true" and 1)' });

/** Date as YYYY-MM-DD. */
export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'expected a date as YYYY-MM-DD' });

/** Datetime as `Y-m-d H:i:s`. */
export const datetime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, { message: "expected a datetime as 'YYYY-MM-DD HH:MM:SS'" });

/** A date or datetime as exported (also null). */
export const dateOut = z.string().nullable();

/** Language code key of a `languages{}` block. */
export const languageCode = z.string().regex(/^[a-z]{2}$/, { message: 'expected a two-letter language code like de or en' });

/** A `languages{}` object for writes: per language code, a strict block of the given fields (all optional). */
export function languagesWrite<T extends z.ZodRawShape>(block: T) {
  return z.record(languageCode, z.strictObject(block).partial());
}

/** A `languages{}` object as exported: per language code, a loose block. */
export function languagesOut<T extends z.ZodRawShape>(block: T) {
  return z.record(z.string(), z.looseObject(block).partial());
}

/** Strings the shop stores with a hard column length. */
export function maxString(max: number, what: string) {
  return z.string().max(max, { message: `${what} is at most ${max} characters` });
}

/** E-mail address. */
export const email = z.email({ message: 'expected an e-mail address' });
