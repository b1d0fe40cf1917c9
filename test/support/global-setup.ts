// One real control plane (etcd + kube-apiserver) for the whole end-to-end test run, and the lab OpenStack the files
// of test/e2e/openstack share (started by the first that needs it, stopped here).
import type { TestProject } from 'vitest/node';
import { stopSharedOpenStack } from '../../lab/clouds/openstack/index.ts';
import { ControlPlane, type ControlPlaneInfo } from '../../lab/controlplane/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    controlPlane: ControlPlaneInfo;
    /** The process that owns the run's shared resources (the lab OpenStack of test/e2e/openstack). */
    testRunPid: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const controlPlane = await ControlPlane.start();
  console.log(
    `control plane ready at ${controlPlane.info.server} in ${Date.now() - started} ms (${controlPlane.info.dir})`,
  );
  project.provide('controlPlane', controlPlane.info);
  project.provide('testRunPid', process.pid);
  return async () => {
    await Promise.all([controlPlane.stop(), stopSharedOpenStack(process.pid)]);
  };
}
