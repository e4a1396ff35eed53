import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * `npm test` runs every `*.test.ts` but the infrastructure tests (`*.infra.test.ts`: PostgreSQL
 * clusters of their own stopped and crashed, libfaketime clocks, full disks), which take minutes of
 * real outage each; `npm run test:infra` (SHOPSYNC_INFRA_TEST=1) runs those alone, and `.ci/run`
 * runs both. The real-ERP tests (`test/erp/tryton/`: a Tryton database made through trytond-admin
 * and proteus) are left out too unless SHOPSYNC_ERP_TEST=1 (`npm run test:erp`, which `.ci/run`
 * also runs): they need Debian's Tryton packages and minutes for a first database. The long versions
 * of stories `npm test` tells smaller (`*.long.test.ts`: the crash story at 5,000 products) run in
 * `npm run test:long` (SHOPSYNC_LONG_TEST=1), which `.ci/run` calls too.
 *
 * Worker processes are shared between files (`isolate: false`): loading the project's modules again
 * for each of 330 files was half of the suite's CPU. A file must leave its process as it found it
 * (test/support/noLeaks.ts fails the one that does not); files that cannot — they use nock, which
 * patches `fetch` for the process's lifetime, or say `// vitest: alone` — form the `alone` project, a
 * fresh process each. Three workers on two cores: most tests wait on a server or a child process.
 */
const infra = process.env.SHOPSYNC_INFRA_TEST === '1';
const erp = process.env.SHOPSYNC_ERP_TEST === '1';
/** `npm run test:long`: the long versions of stories `npm test` tells smaller (`*.long.test.ts`). */
const long = process.env.SHOPSYNC_LONG_TEST === '1';

const root = resolve(import.meta.dirname);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Test files that need a process of their own: they (or a helper they import from their own folder) import nock, or they say `// vitest: alone`. */
function aloneFiles(): string[] {
  const files = tsFiles(join(root, 'test'));
  const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
  const usesNock = (t: string) => /from 'nock'/.test(t);
  const nockHelpers = files.filter((f) => !f.endsWith('.test.ts') && usesNock(text.get(f)!));
  return files
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => {
      const t = text.get(f)!;
      if (usesNock(t) || /^\/\/ vitest: alone/m.test(t)) return true;
      return nockHelpers.some((h) => dirname(h) === dirname(f) && t.includes(`'./${basename(h, '.ts')}.js'`));
    })
    .map((f) => relative(root, f));
}

/**
 * The files that take longest (docs/development.md keeps the report: `node scripts/slowest-tests.mjs`), started
 * first. vitest orders by the durations of the last run on this machine, and a fresh clone has none: it then
 * starts the largest files first, and a short file that tells a long story (crash.test.ts calls crashStory) came
 * last and kept the suite going a minute after the others had finished.
 */
const SLOW_FIRST = [
  'test/init/orders-pull.test.ts',
  'test/cli/pipes.test.ts',
  'test/init/erp-layouts.test.ts',
  'test/sim/short.test.ts',
  'test/shop/rate/shared/replicas.test.ts',
  'test/pipeline/crash.test.ts',
  'test/cli/init-cursor.test.ts',
  'test/cli/sync.test.ts',
  'test/cli/throttled-shop.test.ts',
  'test/jobs/shutdown.test.ts',
  'test/jobs/replicas.test.ts',
  'test/docs/run.test.ts',
  'test/triggers/notify/daemon.test.ts',
  'test/cli/state-restore.test.ts',
  'test/jobs/ticks.test.ts',
];

/** vitest's order, with the known slow files first (in the order above). */
class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.indexOf(relative(root, f.moduleId));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

const include = infra ? ['test/**/*.infra.test.ts'] : long ? ['test/**/*.long.test.ts'] : ['test/**/*.test.ts'];
const exclude = ['dist/**', 'node_modules/**', ...(infra ? [] : ['test/**/*.infra.test.ts']), ...(long ? [] : ['test/**/*.long.test.ts']), ...(erp ? [] : ['test/erp/tryton/**'])];
/** Whether this run (npm test, test:infra or test:long) takes a test file at all; the exclusions below still apply. */
const inThisRun = (f: string) => (infra ? f.endsWith('.infra.test.ts') : long ? f.endsWith('.long.test.ts') : true);
const alone = aloneFiles().filter(inThisRun);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
    // Infrastructure tests stop and start servers of their own: one file at a time.
    ...(infra ? { fileParallelism: false } : {}),
    // A runtime warning (DeprecationWarning…) fails the test that caused it (issue 31 item 7); a file that leaves its process changed fails too.
    setupFiles: ['test/support/failOnWarning.ts', 'test/support/noLeaks.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include, exclude: [...exclude, ...alone], isolate: infra || long } },
      { extends: true, test: { name: 'alone', include: alone.length > 0 ? alone : ['no-file-is-alone-in-this-run'], exclude, isolate: true, env: { SHOPSYNC_TEST_ALONE: '1' } } },
    ],
  },
});
