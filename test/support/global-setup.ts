// One real control plane (etcd + kube-apiserver) for the whole end-to-end test run.
import type { TestProject } from 'vitest/node';
import { ControlPlane, type ControlPlaneInfo } from '../../lab/controlplane/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    controlPlane: ControlPlaneInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const controlPlane = await ControlPlane.start();
  console.log(
    `control plane ready at ${controlPlane.info.server} in ${Date.now() - started} ms (${controlPlane.info.dir})`,
  );
  project.provide('controlPlane', controlPlane.info);
  return () => controlPlane.stop();
}
