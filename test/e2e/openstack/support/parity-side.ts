// What the parts of the OpenStack parity test share: the two implementations, the context of the whole file and
// one side's running parts, and the names both sides use.
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { LabOpenStack } from '../../../../lab/clouds/openstack/index.ts';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';
import type { Snapshot } from '../../../support/parity/flatten.ts';
import type { Estate } from './estate.ts';
import type { IdNames } from './parity-cloud.ts';

export const PARITY_CLUSTER = 'osparity';
export const CLUSTER_CIDR = '10.245.0.0/16';
export const SERVICE = 'web';

export type OpenStackImpl = 'occm' | 'wasm-ccm';

export interface RunningCCM {
  stop(): Promise<number | null>;
  running(): boolean;
  tail(): string;
  logPath: string;
}

export interface ParityContext {
  info: ControlPlaneInfo;
  admin: KubeConfig;
  /** The wasm-ccm ServiceAccount's token (manifests/rbac.yaml). */
  token: string;
  stack: LabOpenStack;
  namespace: string;
  /** The Service's two NodePorts, the same on both sides. */
  nodePorts: [number, number];
}

/** One side's running parts, for the steps. */
export interface Side {
  impl: OpenStackImpl;
  ctx: ParityContext;
  core: CoreV1Api;
  estate: Estate;
  names: IdNames;
  ccm: RunningCCM;
  out: Snapshot;
  lbName: string;
  serviceUid: string;
  /** Seconds since the side started, per step: the report's timings. */
  steps: string[];
}
