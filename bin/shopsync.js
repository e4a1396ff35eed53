#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { main } from '../dist/src/cli/main.js';

main(process.argv).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
