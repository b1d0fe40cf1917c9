// The system a chaos run works on, started from nothing and torn down at the end: its own control plane (the run
// restarts kube-apiserver and etcd, so it cannot share one), kwok keeping nodes Ready, devcloud in this process,
// the plugin ConfigMap (devcloud v1) and two wasm-ccm replicas with short leader-election timings reading it.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { ControlPlane, startKwok } from '../controlplane/index.ts';
import type { ManagedProcess } from '../process/index.ts';
import {
  prepareKube,
  type Kube,
  devcloudProvider,
  PLUGIN_NAMESPACE,
  putPluginConfigMap,
  writePluginConfig,
} from '../ccm/index.ts';
import type { ChaosModules } from './modules.ts';
import { ReplicaSet } from './replicas.ts';

export const NAMESPACE = 'chaos';
export const CLUSTER_CIDR = '172.16.0.0/12';
export const PLUGIN_CONFIGMAP = { name: 'devcloud-plugin', key: 'devcloud.wasm' };
/** Lease 4 s, renew deadline 3 s, retry 1 s. */
export const LEASE_MS = 4_000;

export interface ChaosSystem {
  controlPlane: ControlPlane;
  kube: Kube;
  core: CoreV1Api;
  cloud: Devcloud;
  kwok: ManagedProcess;
  replicas: ReplicaSet;
  stop(): Promise<void>;
}

/** The /24 pod CIDR number `index` of CLUSTER_CIDR (4,096 of them). */
export function podCIDR(index: number): string {
  return `172.${16 + Math.floor(index / 256)}.${index % 256}.0/24`;
}

/** Replicas run as the image runs them (jemalloc, its Node options), or as plain `node`. */
export interface ReplicaRuntime {
  nodeArgs?: readonly string[];
  env?: Readonly<Record<string, string>>;
}

export async function startSystem(modules: ChaosModules, runtime: ReplicaRuntime = {}): Promise<ChaosSystem> {
  const controlPlane = await ControlPlane.start();
  const stops: (() => Promise<unknown>)[] = [() => controlPlane.stop()];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const info = controlPlane.info;
    const kube = await prepareKube(info);
    const core = kube.admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    const dir = mkdtempSync(join(info.dir, 'chaos-'));
    const kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: dir });
    stops.push(() => kwok.stop());
    const cloud = await startDevcloud();
    stops.push(() => cloud.stop());
    await putPluginConfigMap(core, PLUGIN_CONFIGMAP.name, PLUGIN_CONFIGMAP.key, modules.v1);
    const source = { configMap: { namespace: PLUGIN_NAMESPACE, ...PLUGIN_CONFIGMAP } };
    const provider = devcloudProvider(dir, cloud, 'devcloud', source, { limits: { callTimeout: '5s' } });
    const config = writePluginConfig(dir, 'chaos', { providers: [provider] });
    const replicas = new ReplicaSet({
      info,
      token: kube.token,
      restartDelayMs: 1_000,
      ...runtime,
      args: [
        '--cloud-provider=devcloud',
        `--plugin-config=${config}`,
        `--cluster-cidr=${CLUSTER_CIDR}`,
        '--route-reconciliation-period=5s',
        '--node-monitor-period=2s',
        `--leader-elect-lease-duration=${LEASE_MS / 1000}s`,
        '--leader-elect-renew-deadline=3s',
        '--leader-elect-retry-period=1s',
      ],
    });
    stops.push(() => replicas.stop());
    await replicas.start(2);
    return { controlPlane, kube, core, cloud, kwok, replicas, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
