/**
 * Compare the mapping speed of two builds on a loaded machine: `node scripts/mapping-ab.mjs <dirA> <dirB> [records] [pairs]`.
 *
 * Each dir is a checkout whose `dist/` is built (`npm run build`, or `tsc -p tsconfig.json`). Both
 * compiled `mappings/products.yaml` run in this one process on the mapping bench's records
 * (test/bench/mapping.bench.ts), pass by pass in alternation (A B, B A, ...), and each pass is
 * timed by the process's CPU time. On a machine shared with other work, wall times of separate
 * runs swing by 2-4x; two builds measured side by side in one process see the same load, so the
 * median of the paired ratios B/A holds still where the absolute figures do not.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dirA, dirB] = [process.argv[2], process.argv[3]].map((d) => path.resolve(d ?? '.'));
const RECORDS = Number(process.argv[4] ?? 20_000);
const PAIRS = Number(process.argv[5] ?? 15);
const load = (dir, file) => import(pathToFileURL(path.join(dir, 'dist', file)).href);

const { demoSources, demoTables } = await load(dirA, 'src/demo/index.js');
const tables = new Map(demoTables().map((t) => [t.name, t.rows]));
const source = demoSources().find((s) => s.mapping === 'products');
const articles = tables.get('artikel').map((row) => {
  const record = { ...row };
  for (const c of source.children) record[c.field] = tables.get(/FROM (\w+)/.exec(c.query)[1]).filter((r) => r[c.parentKey] === row[c.parentKey]);
  return record;
});
// As the bench: the article refused by a guard rail is left out, the rest repeated under new numbers.
const usable = articles.filter((r) => r.Lief_ArtNr !== '');
const records = Array.from({ length: RECORDS }, (_, i) => ({ ...usable[i % usable.length], ARTNR: `${String(usable[i % usable.length].ARTNR)}-${i}` }));
const refs = new Map();
for (let i = 1; i <= 6; i++) refs.set(`manufacturers:H-00${i}`, i);
['WG-100', 'WG-110', 'WG-120', 'WG-200', 'WG-210', 'WG-220', 'WG-230', 'WG-300', 'WG-900'].forEach((c, i) => refs.set(`categories:${c}`, i + 1));
const ctx = { lookupReference: (r, k) => refs.get(`${r}:${k}`) };

const apply = [];
for (const dir of [dirA, dirB]) {
  const { loadMapping } = await load(dir, 'src/mapping/index.js');
  apply.push((await loadMapping(path.join(dir, 'mappings', 'products.yaml'))).applySync);
}
const sameOutput = records.slice(0, 300).every((r) => JSON.stringify(apply[0](r, ctx)) === JSON.stringify(apply[1](r, ctx)));
for (const f of apply) for (const r of records) f(r, ctx);

const cpu = [[], []];
const wall = [[], []];
let refused = 0;
for (let k = 0; k < PAIRS; k++) {
  for (const i of k % 2 === 0 ? [0, 1] : [1, 0]) {
    const t = performance.now();
    const c = process.cpuUsage();
    for (const r of records) if (!apply[i](r, ctx).ok) refused++;
    const used = process.cpuUsage(c);
    wall[i].push(((performance.now() - t) * 1000) / RECORDS);
    cpu[i].push((used.user + used.system) / RECORDS);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const fixed = (n, d = 2) => n.toFixed(d);
process.stdout.write(
  [
    `${RECORDS.toLocaleString('en')} bench records, ${PAIRS} pairs of passes; outputs identical on 300 records: ${sameOutput ? 'yes' : 'NO'}; refused: ${refused}`,
    `A ${dirA}: CPU ${fixed(median(cpu[0]))} µs/record (median), wall ${fixed(median(wall[0]))}`,
    `B ${dirB}: CPU ${fixed(median(cpu[1]))} µs/record (median), wall ${fixed(median(wall[1]))}`,
    `B/A, median of the paired CPU ratios: ${fixed(median(cpu[0].map((a, i) => cpu[1][i] / a)), 3)}`,
  ].join('\n') + '\n',
);
