/**
 * What the catalog pipeline init writes does with shop records whose ERP row is gone. An article
 * deleted in the ERP (or, keyed by its number, renumbered) stays live in the shop without
 * `onMissing`, with its last stock, forever. So a pipeline of a database
 * source whose resource can be deactivated gets `onMissing: deactivate` and a nightly complete read
 * (`completeSchedule`); the mass-deletion guard (`options.massDelete`, default 5 % or 50 records)
 * stays as it is, so a wrong query never deactivates the catalog. A file source never holds the
 * whole catalog (each drop is read once), so it gets neither.
 */
import type { ResourceDef } from '../shop/registry/index.js';
import type { Proposal } from './types.js';

/** Nightly, after the ERP's own night jobs have usually finished. */
export const COMPLETE_SCHEDULE = '30 2 * * *';

/** The pipeline settings for records gone from the ERP, and the proposal with the rule that brings a returning record back. */
export interface MissingPlan {
  readonly pipeline: { readonly options: { readonly onMissing: 'deactivate' }; readonly completeSchedule: string };
  readonly proposal: Proposal;
  /** For the config's comment and the screen. */
  readonly note: string;
}

/** `onMissing: deactivate` for a database source of a resource the registry can deactivate; undefined otherwise. */
export function planMissing(resource: ResourceDef, proposal: Proposal, database: boolean, pipelineName: string): MissingPlan | undefined {
  const deactivate = resource.deactivate;
  if (!database || !deactivate) return undefined;
  // A deactivated record that comes back must be made active again: the mapping has to write the status field.
  const writesStatus = proposal.fields.some((f) => f.target === deactivate.field);
  const proposalOut: Proposal = writesStatus
    ? proposal
    : { ...proposal, fields: [...proposal.fields, { target: deactivate.field, column: '', value: 1, why: `every source row is offered in the shop; onMissing deactivates (${deactivate.field} ${deactivate.value}) the ones that leave the ERP, and this makes one that comes back active again. If the ERP marks products inactive, map that column here instead, or leave them out in the query` }] };
  const one = resource.name.replace(/s$/, '');
  // With the ERP's stable id as the key a changed number is a rename (issue 46); an article deleted in the ERP still stays live without onMissing.
  const why = proposal.natural !== undefined
    ? `Records are kept by the ERP's stable id ${proposal.key}, so a changed ${proposal.natural} renames the shop ${one} (docs/catalog.md "Renamed articles"); an article deleted in the ERP would stay live in the shop, with its stock, forever`
    : `An article whose number changes in the ERP is a new ${one} to the shop, and the old one would stay live, with its stock, forever`;
  const note = `Gone from the ERP: options.onMissing: deactivate with completeSchedule "${COMPLETE_SCHEDULE}". ${why}; the complete read each night (the daemon, \`shopsync run\`) sets ${deactivate.field} ${deactivate.value} on shop records whose ERP row is gone (nothing is deleted), and \`shopsync sync ${pipelineName} --complete\` does it now. The mass-deletion guard (options.massDelete: more than 5 % or 50 records) refuses such a step whole, e.g. after a wrong query: look at the source, then run \`shopsync sync ${pipelineName} --complete --allow-mass-delete\``;
  return { pipeline: { options: { onMissing: 'deactivate' }, completeSchedule: COMPLETE_SCHEDULE }, proposal: proposalOut, note };
}
