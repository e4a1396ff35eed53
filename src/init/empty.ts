/**
 * The empty policy init writes on each proposed rule (docs/mappings.md "Empty values"): `clear`
 * where the registry knows the field's empty value (an EAN or a description removed in the ERP is
 * removed in the shop), `keep` where emptying would do harm (prices and stock: an empty cell is
 * unknown, never 0), and none on a required rule, which refuses an empty value already.
 */
import { emptyOf, type ResourceDef } from '../shop/registry/index.js';
import type { ProposedField } from './types.js';

/** The policy and the reason the file's comment gives for it. */
export interface ProposedEmpty {
  readonly policy: 'keep' | 'clear';
  readonly why: string;
}

/** The `when_empty` init proposes for a field, or undefined when the rule is required. */
export function proposedEmpty(resource: ResourceDef, field: ProposedField): ProposedEmpty | undefined {
  if (field.required) return undefined;
  const empty = emptyOf(resource, field.target);
  if ('clear' in empty) return { policy: 'clear', why: 'empty in the ERP empties it in the shop' };
  const decimal = field.type === 'decimal' || resource.decimalFields.includes(field.target);
  return { policy: 'keep', why: decimal ? 'empty keeps the shop\'s value: an empty cell is unknown, never 0' : 'empty keeps the shop\'s value: this field cannot be emptied safely' };
}
