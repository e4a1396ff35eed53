import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A runtime warning (DeprecationWarning…) fails the test that caused it (issue 31 item 7).
    setupFiles: ['test/support/failOnWarning.ts'],
  },
});
