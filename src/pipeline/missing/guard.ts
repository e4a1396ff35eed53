/**
 * The mass-deletion guard (rsync's --max-delete): an empty export, a source query pointed at the
 * wrong table or a filter typed wrong looks exactly like a catalog that was wiped. The step is
 * refused whole when it would touch more than `massDelete.maxShare` of the resource's records the
 * state knows in the shop, or more than `massDelete.maxCount` records; nothing of it is done until
 * someone looks and runs `shopsync sync <pipeline> --allow-mass-delete`.
 */
import type { PipelineDefinition } from '../schema.js';

/** The stable code of a refused step (run error, alert, dashboard). */
export const MASS_DELETE_REFUSED = 'MASS_DELETE_REFUSED';

/** Why the guard refuses `candidates` of `total`, or undefined when it lets them through. */
export function massDeleteRefusal(def: PipelineDefinition, action: 'deactivate' | 'delete', candidates: number, total: number, sample: readonly string[]): { code: typeof MASS_DELETE_REFUSED; message: string; sample: readonly string[] } | undefined {
  if (candidates === 0) return undefined;
  const { maxShare, maxCount } = def.options.massDelete;
  const share = total > 0 ? candidates / total : 1;
  const overCount = candidates > maxCount;
  const overShare = share > maxShare;
  if (!overCount && !overShare) return undefined;
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const limit = [overCount ? `more than ${maxCount} record(s) (massDelete.maxCount)` : undefined, overShare ? `more than ${pct(maxShare)} of the ${total} ${def.resource} shopsync knows in the shop (massDelete.maxShare)` : undefined].filter(Boolean).join(' and ');
  const verb = action === 'delete' ? 'delete' : 'deactivate';
  return {
    code: MASS_DELETE_REFUSED,
    message: `refused to ${verb} ${candidates} ${def.resource} (${pct(share)}) that are gone from the ERP: ${limit}. Nothing was ${verb}d. Check the source (an empty export or a wrong query looks like a wiped catalog), e.g. ${sample.slice(0, 5).join(', ')}; when the ERP is right, run \`shopsync sync ${def.name} --allow-mass-delete\`.`,
    sample,
  };
}
