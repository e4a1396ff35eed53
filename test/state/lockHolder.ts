/**
 * A separate process that takes a lane's lock (and starts a run on that lane) and then holds it
 * until it is killed: `node --import tsx test/state/lockHolder.ts '<location json>' <lane>`.
 * Prints `held <tookOver>` or `refused <code>` on one line.
 */
import { openState, type StateLocation } from '../../src/state/index.js';

const [locationJson, lane] = process.argv.slice(2);
const state = await openState(JSON.parse(locationJson!) as StateLocation);
try {
  const lock = await state.locks.acquire(lane!);
  await state.runs.start({ pipeline: lane!, mode: 'sync', lane: lane! });
  process.stdout.write(`held ${lock.tookOver}\n`);
  setInterval(() => void lock.heartbeat(), 1000);
} catch (err) {
  process.stdout.write(`refused ${(err as { code?: string }).code ?? String(err)}\n`);
  await state.close();
}
