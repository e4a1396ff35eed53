import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs every `*.test.ts` but the infrastructure tests (`*.infra.test.ts`: PostgreSQL
 * clusters of their own stopped and crashed, libfaketime clocks, full disks), which take minutes of
 * real outage each; `npm run test:infra` (SHOPSYNC_INFRA_TEST=1) runs those alone, and `.ci/run`
 * runs both. The real-ERP tests (`test/erp/tryton/`: a Tryton database made through trytond-admin
 * and proteus) are left out too unless SHOPSYNC_ERP_TEST=1 (`npm run test:erp`, which `.ci/run`
 * also runs): they need Debian's Tryton packages and minutes for a first database.
 */
const infra = process.env.SHOPSYNC_INFRA_TEST === '1';
const erp = process.env.SHOPSYNC_ERP_TEST === '1';

export default defineConfig({
  test: {
    include: infra ? ['test/**/*.infra.test.ts'] : ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**', ...(infra ? [] : ['test/**/*.infra.test.ts']), ...(erp ? [] : ['test/erp/tryton/**'])],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Infrastructure tests stop and start servers of their own: one file at a time.
    ...(infra ? { fileParallelism: false } : {}),
    // A runtime warning (DeprecationWarning…) fails the test that caused it (issue 31 item 7).
    setupFiles: ['test/support/failOnWarning.ts'],
  },
});
