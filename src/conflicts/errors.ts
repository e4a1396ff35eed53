/**
 * What a guarded field reports (issue 46). Both travel as warnings on the record's event (the rest
 * of the record was written); the conflict itself is also a row of the state until a person decides.
 */
import { SyncError } from '../errors.js';

/** A value as a message shows it: JSON, cut after 80 characters. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** The three values of a guarded field that disagree. */
export interface ConflictValues {
  readonly pipeline: string;
  readonly erpKey: string;
  readonly field: string;
  readonly erpValue: unknown;
  /** Absent: shopsync does not know what it last sent. */
  readonly sentValue?: unknown;
  readonly shopValue: unknown;
}

/** The shop's people changed a guarded field: the shop's value stays, the conflict waits for a person. */
export class FieldConflictError extends SyncError {
  constructor(c: ConflictValues, shopId?: string | number) {
    const sent = 'sentValue' in c && c.sentValue !== undefined ? `shopsync last sent ${shown(c.sentValue)}` : 'shopsync has no record of what it last sent (the field became guarded after the record was last written)';
    super(
      'FIELD_CONFLICT',
      `\`${c.field}\` of ${c.erpKey}: the shop holds ${shown(c.shopValue)}, ${sent}, the ERP sends ${shown(c.erpValue)}: the shop's value is kept (owner: guard) and the rest of the record was written. Decide with \`shopsync conflicts resolve ${c.pipeline} ${c.erpKey} ${c.field} --take erp\` (or \`--take shop\`), or on the dashboard's conflicts page`,
      { record: { erpKey: c.erpKey, ...(shopId !== undefined ? { shopId } : {}) }, details: { field: c.field, erp: c.erpValue, ...('sentValue' in c && c.sentValue !== undefined ? { sent: c.sentValue } : {}), shop: c.shopValue } },
    );
  }
}

/** The shop's current value of a guarded field could not be read: the field is held, never overwritten blind. */
export class GuardUnreadError extends SyncError {
  constructor(erpKey: string, fields: readonly string[], reason: string) {
    super(
      'GUARD_FIELD_UNREAD',
      `${fields.map((f) => `\`${f}\``).join(', ')} of ${erpKey} not sent: the shop's current value could not be read (${reason}), and a guarded field is never overwritten without comparing; the rest of the record was written, and the next run that sends it compares again`,
      { record: { erpKey }, details: { fields: [...fields], reason } },
    );
  }
}

/** `conflicts resolve` named a conflict the state does not hold open. */
export class ConflictNotFoundError extends SyncError {
  constructor(pipeline: string, erpKey: string, field?: string) {
    super(
      'CONFLICT_NOT_FOUND',
      `no open conflict of ${pipeline} for ${erpKey}${field !== undefined ? ` in \`${field}\`` : ''} (resolved already? see \`shopsync conflicts list ${pipeline}\`)`,
      { record: { erpKey }, details: { pipeline, ...(field !== undefined ? { field } : {}) } },
    );
  }
}
