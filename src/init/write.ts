/**
 * Writing init's files. Nothing that exists is overwritten without `--force`, and the check runs
 * for every file before the first is written, so a refused init leaves the folder as it was.
 * Secret files are readable by their owner only, in a folder that tells git to ignore it.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SECRETS_DIR, type SecretFile } from './connection.js';
import { INIT_CODES, InitError } from './errors.js';

/** One file to write. */
export interface PlannedFile {
  /** Absolute path. */
  readonly path: string;
  readonly text: string;
  readonly secret?: boolean;
}

async function current(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The files for secrets, beside a `.gitignore` that keeps them out of repositories. */
export function secretFiles(configDir: string, secrets: readonly SecretFile[]): PlannedFile[] {
  if (secrets.length === 0) return [];
  return [
    ...secrets.map((s) => ({ path: path.join(configDir, s.file), text: `${s.value}\n`, secret: true })),
    { path: path.join(configDir, SECRETS_DIR, '.gitignore'), text: '# written by shopsync init: secrets never go into a repository\n*\n' },
  ];
}

/** Write every file; refuses (before writing any) when one exists with other content and `force` is not set. Returns the paths written. */
export async function writeFiles(files: readonly PlannedFile[], force: boolean): Promise<string[]> {
  const existing: string[] = [];
  for (const f of files) {
    const now = await current(f.path);
    if (now !== undefined && now !== f.text) existing.push(f.path);
  }
  if (existing.length > 0 && !force) {
    throw new InitError(INIT_CODES.exists, `${existing.join(', ')} ${existing.length === 1 ? 'exists' : 'exist'}; init never overwrites files: move ${existing.length === 1 ? 'it' : 'them'} away, choose another folder (--dir), or pass --force to overwrite`);
  }
  const written: string[] = [];
  for (const f of files) {
    await mkdir(path.dirname(f.path), { recursive: true });
    await writeFile(f.path, f.text, f.secret ? { mode: 0o600 } : {});
    // The mode of writeFile applies only to a new file; an overwritten secret gets it too.
    if (f.secret) await chmod(f.path, 0o600);
    written.push(f.path);
  }
  return written;
}
