import { defineConfig } from 'vitest/config';

/**
 * End-to-end files of the second lane (scripts/run-tests.ts runs the lanes as two vitest processes; the first has
 * the unit tests and the other e2e files): the files of the run's one lab OpenStack, which must share a process, the
 * upstream parity run and the AWS files (each starts its own moto), chosen by measured time so that the lanes end
 * together (a clean-clone run: unit + e2e-a ~24 min, e2e-b ~25 min).
 */
const LANE_B = ['test/e2e/openstack/**/*.test.ts', 'test/e2e/parity/**/*.test.ts', 'test/e2e/aws/**/*.test.ts'];

/**
 * One project per lane. Each starts its own control plane and runs its files one at a time: a CCM acts on every
 * Node and Service of its control plane, so two files on one control plane must not run at once.
 */
function e2eLane(name: string, include: string[], exclude: string[] = []) {
  return {
    test: {
      name,
      include,
      exclude: ['**/node_modules/**', ...exclude],
      globalSetup: ['test/support/global-setup.ts'],
      setupFiles: ['test/support/e2e-file-setup.ts'],
      fileParallelism: false,
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  };
}

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
      e2eLane('e2e-a', ['test/smoke/**/*.test.ts', 'test/e2e/**/*.test.ts'], LANE_B),
      e2eLane('e2e-b', LANE_B),
    ],
  },
});
