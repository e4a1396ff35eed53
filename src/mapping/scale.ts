/**
 * Decimals as the shop stores them: a value headed for a decimal field is fitted to the field's
 * scale (the registry's, or the rule's `scale:`), rounded half-up, so a double's noise
 * (0.1 + 0.2 = 0.30000000000000004) never reaches the shop and the payload, its hash and
 * reconcile's comparison all see the value the shop will hold. A rounding that cuts more than
 * noise (12.3456 into 2 places) is a per-record warning, DECIMAL_ROUNDED; the record is still sent.
 */
import { fitScale, numberText } from '../util/decimal.js';
import type { Finding } from './types.js';
import type { CoercionType } from './schema.js';

/** The warning code of a rounding that cut more than a double's noise. */
export const DECIMAL_ROUNDED = 'DECIMAL_ROUNDED';

/** Fits one produced value to a scale, pushing a warning when it lost real digits. */
export type ScaleFitter = (value: unknown, warnings: Finding[], field: string) => unknown;

/**
 * The fitter of a rule, or undefined when its values are not decimals with a scale. `type: decimal`
 * (strings) and `type: number` (numbers) always fit; an untyped rule fits numbers and point-decimal
 * strings and leaves anything else to the guard rails (a comma decimal is refused there).
 */
export function scaleFitter(type: CoercionType | undefined, scale: number | undefined, declared: boolean): ScaleFitter | undefined {
  if (scale === undefined) return undefined;
  if (type !== undefined && type !== 'decimal' && type !== 'number') return undefined;
  const source = declared ? 'the rule\'s `scale:`' : 'the shop stores';
  return (value, warnings, field) => {
    const asNumber = typeof value === 'number';
    const text = asNumber ? numberText(value) : typeof value === 'string' ? value : undefined;
    if (text === undefined) return value;
    // The usual value has no more places than the scale as written: nothing to parse (this runs for every decimal of every record).
    const dot = text.indexOf('.');
    if (dot < 0 || text.length - dot - 1 <= scale) return value;
    const fit = fitScale(text, scale);
    if (!fit || !fit.rounded) return value;
    if (fit.lossy) {
      warnings.push({
        code: DECIMAL_ROUNDED,
        field,
        message: `${text} rounded half-up to ${fit.text}: ${source} ${scale} decimal place${scale === 1 ? '' : 's'} for \`${field}\`; round it in the ERP, or declare \`scale:\` on the rule if the shop keeps more`,
      });
    }
    return asNumber ? Number(fit.text) : fit.text;
  };
}
