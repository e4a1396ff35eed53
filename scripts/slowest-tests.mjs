// The slowest test files of a vitest JSON report (`npm test -- --reporter=json --outputFile.json=report.json`),
// as the markdown table docs/development.md keeps: node scripts/slowest-tests.mjs report.json [count]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file = '.vitest-report.json', count = '15'] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const rows = report.testResults
  .map((f) => ({ file: f.name.includes('/test/') ? f.name.slice(f.name.indexOf('/test/') + 1) : relative(process.cwd(), f.name), seconds: (f.endTime - f.startTime) / 1000, tests: f.assertionResults.length }))
  .sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((s, r) => s + r.seconds, 0);
console.log(`| file | tests | seconds | share of the files' time |\n|---|---:|---:|---:|`);
for (const r of rows.slice(0, Number(count))) console.log(`| \`${r.file}\` | ${r.tests} | ${r.seconds.toFixed(1)} | ${((100 * r.seconds) / total).toFixed(1)} % |`);
console.log(`\n${rows.length} files, ${report.numTotalTests} tests; the files' times add up to ${total.toFixed(0)} s over the workers.`);
