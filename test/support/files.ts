/** Files as an ERP drops them into an inbox. */
import { utimesSync, writeFileSync } from 'node:fs';

/**
 * Write a file its writer finished a minute ago: settled and quiet. A file written this instant is
 * one a writer may still be writing; the inbox archives it, or calls it unreadable, only once it has
 * been quiet for a second.
 */
export function dropFile(file: string, content: string | Buffer, ageMs = 60_000): void {
  writeFileSync(file, content);
  const at = new Date(Date.now() - ageMs);
  utimesSync(file, at, at);
}
