/**
 * A full disk under a PostgreSQL state (issue 39, item 5): the state's database lies in a tablespace
 * on a tmpfs of this test's own (24 MiB), in a PostgreSQL cluster of its own, and a filler file takes
 * the last byte. PostgreSQL then cannot extend a table ("could not extend file", SQLSTATE 53100):
 * writes fail with STATE_DISK_FULL naming the server and the fix, the write probe of /readyz fails
 * at once (before any run met it), and once the filler is gone both work again with every row
 * committed before still there. Needs root (the mount, the cluster); CI is root.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openState, type StateStore } from '../../src/state/index.js';
import { ownCluster } from '../support/cluster.js';
import { removeDir, tempDir } from '../support/tmp.js';

const own = await ownCluster('disk_full');
// Narrowed once: the suite below runs only with a cluster.
const cluster = own as Extract<typeof own, { available: true }>;

/** Write until the file system says ENOSPC, in ever smaller pieces, so not one block is left. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!own.available)('a full disk under a PostgreSQL state', () => {
  let dir: string;
  let disk: string;
  let state: StateStore;
  const settle = (batch: number) => state.write((tx) => {
    for (let i = 0; i < 200; i++) tx.refs.put('products', `K-${batch}-${i}`, batch * 1000 + i);
  });

  beforeAll(async () => {
    if (!own.available) return;
    dir = tempDir('shopsync-pg-disk-full-');
    // The server's user must reach the tablespace's folder through this one.
    chmodSync(dir, 0o755);
    disk = join(dir, 'disk');
    mkdirSync(disk);
    const uid = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=24m,uid=${uid},gid=${gid},mode=700`, 'tmpfs', disk]);
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    try {
      await admin.query(`CREATE TABLESPACE small LOCATION '${disk}'`);
      await admin.query('CREATE DATABASE state TABLESPACE small');
    } finally {
      await admin.end();
    }
    state = await openState({ kind: 'postgres', url: cluster.url('state'), schema: 'shopsync' });
    await settle(0);
  }, 300_000);

  afterAll(async () => {
    await state?.close();
    if (!own.available) return;
    await cluster.drop();
    try {
      execFileSync('umount', [disk]);
    } finally {
      removeDir(dir);
    }
  });

  it('fails writes and the write probe with STATE_DISK_FULL naming the server and the fix', async () => {
    fill(join(disk, 'filler'));
    // The probe needs no write to have failed first: it makes PostgreSQL extend a file of its own.
    await expect(state.probeWrite()).rejects.toMatchObject({ code: 'STATE_DISK_FULL', details: { sqlState: '53100', port: cluster.port } });
    let failed: unknown;
    for (let batch = 1; batch <= 1000 && failed === undefined; batch++) await settle(batch).catch((err: unknown) => (failed = err));
    expect(failed).toMatchObject({ code: 'STATE_DISK_FULL', details: { sqlState: '53100' } });
    expect((failed as Error).message).toContain(`the disk of the state's PostgreSQL at 127.0.0.1:${cluster.port} is full (could not extend file`);
    expect((failed as Error).message).toContain("free space on the server's data volume (or the tablespace of schema shopsync), or move the state (state.url)");
  });

  it('takes writes again once space is freed, with every row committed before still there', async () => {
    const before = await state.refs.count('products');
    rmSync(join(disk, 'filler'));
    await state.probeWrite();
    await settle(5000);
    expect(await state.refs.count('products')).toBe(before + 200);
    expect(before % 200).toBe(0);
  });
});
