/**
 * The files shopsync creates hold what the shop and the ERP know (customers, orders, references):
 * they are the shopsync user's alone, whatever the umask it runs under (issue 42, finding 18).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

const mode = (path: string) => statSync(path).mode & 0o777;

let dir: string;
let umask: number;
beforeEach(() => {
  dir = tempDir('shopsync-perm-');
  // The loosest umask there is: every bit shopsync does not clear itself would show.
  umask = process.umask(0o000);
});
afterEach(() => {
  process.umask(umask);
  removeDir(dir);
});

describe('the SQLite state file', () => {
  it('is created 0600 with its WAL and SHM files, in a folder created 0700, under umask 000', async () => {
    const path = join(dir, 'var', 'lib', 'state.db');
    const state = await openState(path);
    try {
      await state.write((tx) => tx.refs.put('products', 'A-1', 1));
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
      expect([mode(join(dir, 'var')), mode(join(dir, 'var', 'lib'))]).toEqual([0o700, 0o700]);
      await state.backup(join(dir, 'backup.db'));
      expect(mode(join(dir, 'backup.db'))).toBe(0o600);
    } finally {
      await state.close();
    }
  });
});
