// The run's lab OpenStack, shared by the files of test/e2e/openstack (lab/clouds/openstack/shared.ts): the first file
// starts it (minutes on a cold machine, ~1.5 min warm), the others find it, the run's teardown stops it. Each file
// works in projects of its own (createTestProject), so files do not see each other's servers or load balancers.
import { inject } from 'vitest';
import { type LabOpenStack, sharedOpenStack } from '../../../../lab/clouds/openstack/index.ts';

/** beforeAll's timeout for labOpenStack(): a cold machine initializes the cached state first. */
export const LAB_START_TIMEOUT_MS = 20 * 60_000;

export function labOpenStack(): Promise<LabOpenStack> {
  return sharedOpenStack(inject('testRunPid'));
}
