#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`: tsc writes dist/src,
// scripts/bundle-cli.mjs bundles it into dist/cli, which starts in about half the CPU time
// (docs/development.md, "Start-up"). Without the bundle, tsc's output runs as it is.
import { statSync } from 'node:fs';

const bundled = new URL('../dist/cli/main.js', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs;
// tsc rewrites every file it emits: a bundle older than tsc's main.js was not rebuilt since (a bare
// `tsc` after an edit), and would run yesterday's code. tsc's output is the current one then.
const bundleTime = mtime(bundled);
const { main } = await import(bundleTime !== undefined && bundleTime >= (mtime(compiled) ?? 0) ? bundled.href : compiled.href);

main(process.argv).then(
  (code) => {
    // A run abandoned earlier (src/drain) may have set a non-zero code already: never lower it to 0.
    if (typeof code === 'number') process.exitCode = code || process.exitCode || 0;
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
