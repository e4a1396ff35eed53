#!/usr/bin/env node
// tsc compiles only .ts: copy every src/**/*.sql (state migrations of every backend) to the same
// place under dist/src/, so compiled code finds its SQL next to its own module and never reads src/.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src');
const to = join(root, 'dist', 'src');

function* sqlFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sqlFiles(path);
    else if (entry.isFile() && entry.name.endsWith('.sql')) yield path;
  }
}

// A migration renamed or removed in src/ must not linger in dist/ (tsc never cleans it): the state
// would read it as a step of its own.
let removed = 0;
if (existsSync(to)) {
  for (const file of sqlFiles(to)) {
    if (!existsSync(join(from, relative(to, file)))) {
      rmSync(file);
      removed++;
    }
  }
}

let copied = 0;
for (const file of sqlFiles(from)) {
  const target = join(to, relative(from, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  copied++;
}
if (process.argv.includes('--verbose')) process.stdout.write(`copy-sql: ${copied} file(s) into ${relative(process.cwd(), to) || '.'}, ${removed} stale removed\n`);
