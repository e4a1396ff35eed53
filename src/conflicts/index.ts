/**
 * Who owns a field once a record exists (issue 46; docs/mappings.md "Who owns a field"). A mapping
 * rule says `owner: erp` (the default: updates overwrite the shop), `shop` (sent on create only) or
 * `guard` (an edit made in the shop is kept and reported). This folder holds what `guard` means: the
 * screen before an update batch (guard.ts) and the read of the shop it needs (read.ts), what settling
 * remembers (settle.ts), the conflicts a person decides (resolve.ts) and the "take ERP" deliveries
 * (taken.ts). The push, the dry run and reconcile read the mapping's one table of owners.
 */
export { ConflictNotFoundError, FieldConflictError, GuardUnreadError, shown } from './errors.js';
export { FieldGuard, type FieldGuardDeps, type FieldScreen } from './guard.js';
export { hasPath, setPath, valueAtPath, withoutPaths } from './paths.js';
export { readCurrent, readWayOf, rangesOf, type CurrentRecords, type ReadWay } from './read.js';
export { resolutionText, resolveConflicts, type ConflictSelection, type ConflictTake } from './resolve.js';
export { rememberSent } from './settle.js';
export { sendTaken, type TakenDeps } from './taken.js';
