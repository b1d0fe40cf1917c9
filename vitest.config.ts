import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report feeds the plain "N passed, N failed" closing line (scripts/test-summary.ts).
    reporters: ['default', 'json'],
    outputFile: { json: 'node_modules/.cache/wasm-ccm/test-results.json' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['host/**/*.test.ts', 'test/unit/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/smoke/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/e2e-file-setup.ts'],
          // One control plane for the run, and a CCM acts on every Node: files must not run at the same time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
