/**
 * The kept mutations (test/sim/mutations/*.patch) are the simulation's proof that it bites: a
 * patch that no longer applies proves nothing, and `npm run sim -- --mutation` would stop on it.
 * So every one is tried against today's src/ (a dry run of `patch`, as test/sim/mutate.ts applies it).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FOLDER = join(ROOT, 'test/sim/mutations');
const patches = readdirSync(FOLDER).filter((f) => f.endsWith('.patch'));

describe('the kept mutations', () => {
  it('are there', () => {
    expect(patches.length).toBeGreaterThanOrEqual(8);
  });

  it.each(patches)('%s still applies to the source it mutates', (file) => {
    const dry = spawnSync('patch', ['--dry-run', '-p1', '--forward', '--fuzz=2', '--ignore-whitespace', '-i', join(FOLDER, file)], { cwd: ROOT, encoding: 'utf8' });
    expect(`${dry.stdout}${dry.stderr}`).not.toMatch(/FAILED|can't find file|Reversed/);
    expect(dry.status).toBe(0);
  });
});
