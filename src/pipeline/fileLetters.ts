/**
 * Letters about files: once a later delivery of a file was read whole, the letters of its earlier
 * deliveries (the unreadable file, its broken rows) have lost their cause and close.
 */
import { SOURCE_CODES, type SettledFile } from '../erp/types.js';
import type { Logger } from '../log.js';
import type { PipelineDeps } from './types.js';
/** Codes of letters about a file or a row of it (as opposed to a record that the shop refused). */
const FILE_LETTER_CODES = Object.values(SOURCE_CODES);

/**
 * Close the letters of files that a later delivery read whole: the unreadable file, the broken rows
 * of an earlier delivery. Letters this run wrote (rows the new delivery refused again) stay. Returns how many closed.
 */
export async function closeSettledFileLetters(state: PipelineDeps['state'], pipeline: string, runId: number, settled: readonly SettledFile[], logger: Logger): Promise<number> {
  if (settled.length === 0) return 0;
  const files = new Set(settled.map((f) => f.file));
  const ids: number[] = [];
  for (const code of FILE_LETTER_CODES) {
    for (const letter of await state.deadLetters.list({ pipeline, code, limit: 100_000 })) {
      if (letter.origin?.file !== undefined && files.has(letter.origin.file) && letter.runId !== runId) ids.push(letter.id);
    }
  }
  if (ids.length === 0) return 0;
  const closed = await state.deadLetters.drop(pipeline, ids);
  logger.info({ letters: closed, files: [...files] }, 'a later delivery of these files was read whole; their file letters are closed');
  return closed;
}
