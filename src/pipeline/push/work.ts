/** The unit of work of a push: one source record on its way to the shop. */
import type { CursorPosition, ErpRecord, RecordOrigin } from '../../erp/types.js';
import type { StockSent } from '../../reservations/types.js';
import type { FieldConflict, ShopId, StoredIssue } from '../../state/index.js';
import type { RenamePlan } from '../../renames/tracker.js';

/** An append-only list entry the payload carries, with its identity hash. */
export interface HistoryItem {
  readonly field: string;
  readonly identity: string;
  readonly entry: Record<string, unknown>;
}

/** One record between mapping and settlement. */
export interface WorkItem {
  /** Low-water-mark sequence number (absent for dead-letter retries, which have no position). */
  readonly seq?: number;
  readonly erpKey: string;
  readonly record: ErpRecord;
  readonly position?: CursorPosition;
  /** The mapped payload, without the shop id (with the create-only fields; updates drop them). */
  payload: Record<string, unknown>;
  /** Hash of the payload an update would send (create-only fields left out), compared between runs. */
  readonly hash: string;
  /** Hash of the source record it was mapped from, stored with `hash` when the payload follows from the record alone (see sourceHash.ts). */
  readonly sourceHash: string | undefined;
  /**
   * The change time (epoch ms, `deliveredStamp`) of the newest version of this record delivered
   * before, as the batch read it: a delivery not later than it is no new change (push/latency.ts).
   */
  readonly deliveredChange: number | undefined;
  /** The mapping's create-only fields. */
  readonly createOnly?: readonly string[];
  readonly warnings: StoredIssue[];
  op: 'create' | 'update';
  shopId?: ShopId;
  /** Sends whose outcome stayed unknown or failed transiently. */
  attempts: number;
  /** A create was already tried (so a Not found update does not loop back to create). */
  triedCreate: boolean;
  /** The create answered "exists": the record was found in the shop rather than made. */
  foundExisting: boolean;
  /** Append-only entries sent with this payload. */
  history: HistoryItem[];
  /** How many times this item's batch was split off a rejected batch. */
  splitDepth: number;
  /** A create of this record may have reached the shop in this run (its answer was lost). */
  createMayHaveLanded: boolean;
  /** A create of this record may have landed without us learning its id (lost answer, crash): look it up before creating. */
  verify: boolean;
  /**
   * Whether a create intent of this record is open in the state: true when an earlier run left one
   * or this run committed one, false when the batch read found none and none was written since.
   * Undefined: not known, and settling deletes whatever there is.
   */
  intent: boolean | undefined;
  /** An earlier send carrying append-only entries lost its answer: read the record back before sending again. */
  reconcile: boolean;
  /**
   * The JSON text of `textOf` (keys sorted, the hashed text), when the payload was hashed whole:
   * its event stores this text while `payload` is still that object, instead of writing it again.
   */
  payloadText: string | undefined;
  /** The payload object `payloadText` is the text of. */
  textOf: Record<string, unknown> | undefined;
  /** Stock figures this payload carries, remembered as sent once the shop accepted it (src/reservations/sent.ts). */
  stockSent: readonly StockSent[] | undefined;
  /** Figures of this record were sent before: they are forgotten before this payload leaves (the state holds none otherwise). */
  stockSentBefore: boolean;
  /** Target paths an update leaves out because the shop owns them (mapping `owner: shop`, src/mapping/owners.ts). */
  readonly shopOwned: readonly string[] | undefined;
  /** Guarded fields this update leaves out: the shop changed them, or they could not be compared (src/conflicts/guard.ts). */
  held: readonly string[] | undefined;
  /** Settling keeps the record's stored hash: a guarded field was not compared, so the ERP's value is not delivered yet. */
  hashStays: boolean;
  /** Conflicts ("take ERP") that end once the shop accepted this payload. */
  closing: readonly FieldConflict[] | undefined;
  /** The update renames its shop record (a new number under a stable ERP id): old and new number and the old SEO paths (src/renames). */
  rename: RenamePlan | undefined;
  /** The reference this record had under its number before the mapping named a surrogate key; moved to the surrogate when it settles (src/renames). */
  adoptedFrom: string | undefined;
}

/** A record's final outcome, ready to be written to the state. */
export type Settlement =
  | {
      readonly kind: 'done';
      readonly item: WorkItem;
      readonly outcome: 'created' | 'updated' | 'unchanged';
      readonly shopId?: ShopId;
      readonly warnings: readonly StoredIssue[];
      readonly storeHash: boolean;
      /** The state already holds this reference (read from it this run) and no create intent is open: settling writes neither. */
      readonly stateHolds?: boolean;
      /** Read again by the lookback and unchanged: an earlier run counted it; this one writes no event and counts nothing. */
      readonly quiet?: boolean;
    }
  | {
      readonly kind: 'dead';
      readonly item: Pick<WorkItem, 'seq' | 'erpKey' | 'record' | 'warnings'> & { readonly payload?: unknown; readonly hash?: string; readonly shopId?: ShopId; readonly origin?: RecordOrigin; readonly letterKey?: string };
      readonly error: StoredIssue;
      /** The source could not use the record (a broken row, no key, an unreadable file). */
      readonly unreadable?: boolean;
      /** Read again by the lookback as its letter holds it: settling writes nothing and counts nothing. */
      readonly quiet?: boolean;
    };
