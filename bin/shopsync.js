#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { main } from '../dist/src/cli/main.js';

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
