// Shared pieces of the CCM end-to-end tests: a devcloud wired to a wasm-ccm process running the devcloud plugin
// (config, brokered credentials, allow-list), Nodes shaped as a kubelet registers them, and polling helpers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Node, type CoreV1Event } from '@kubernetes/client-node';
import { CCMProcess } from './ccm-process.ts';
import type { ControlPlaneInfo } from '../controlplane/index.ts';
import { builtPlugin } from '../plugins/index.ts';
import type { Devcloud } from '../../devcloud/src/index.ts';

export const UNINITIALIZED_TAINT = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};
export const SHUTDOWN_TAINT_KEY = 'node.cloudprovider.kubernetes.io/shutdown';

export const DEVCLOUD_PLUGIN = builtPlugin('devcloud');

/**
 * The flags that run the devcloud plugin against `cloud`: cloud config in a file, the API token in a
 * credentials file the host attaches to requests (the plugin never sees it), and the one host it may reach.
 */
export function devcloudPluginArgs(dir: string, cloud: Devcloud, tag: string): string[] {
  const host = `127.0.0.1:${cloud.port}`;
  const config = join(dir, `${tag}-devcloud.json`);
  writeFileSync(config, JSON.stringify({ url: cloud.url, region: 'dc-east-1' }));
  const credentials = join(dir, `${tag}-credentials.json`);
  writeFileSync(
    credentials,
    JSON.stringify({ credentials: [{ name: 'devcloud', hosts: [host], bearerToken: cloud.token, insecure: true }] }),
    { mode: 0o600 },
  );
  return [
    '--cloud-provider=devcloud',
    `--plugin=${DEVCLOUD_PLUGIN}`,
    `--cloud-config=${config}`,
    `--plugin-credentials=${credentials}`,
    `--plugin-allowed-hosts=${host}`,
  ];
}

export function startDevcloudCCM(
  info: ControlPlaneInfo,
  token: string,
  cloud: Devcloud,
  tag: string,
  args: string[],
): CCMProcess {
  return new CCMProcess({ info, token, args: [...devcloudPluginArgs(info.dir, cloud, tag), ...args] });
}

export interface KubeletNodeOptions {
  ready?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/**
 * A Node as a kubelet with --cloud-provider=external registers it: the uninitialized taint, its hostname label,
 * and status (Hostname address, and a Ready condition when asked) in the create call itself.
 */
export function kubeletNode(name: string, options: KubeletNodeOptions = {}): V1Node {
  const now = new Date();
  return {
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...options.labels },
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: { taints: [UNINITIALIZED_TAINT] },
    status: {
      addresses: [{ type: 'Hostname', address: name }],
      ...(options.ready === undefined ? {} : { conditions: [readyCondition(options.ready, now)] }),
    },
  };
}

export function readyCondition(ready: boolean, at: Date) {
  return {
    type: 'Ready',
    status: ready ? 'True' : 'False',
    reason: ready ? 'KubeletReady' : 'KubeletNotReady',
    message: ready ? 'kubelet is posting ready status' : 'test: node marked not ready',
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  };
}

/** Sets the Ready condition through nodes/status, as the kubelet (or the node lifecycle controller) does. */
export async function setReady(admin: KubeConfig, name: string, ready: boolean): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  // Read-modify-write races the CCM's own status patches (addresses right after initialization): retry on
  // conflict, as a kubelet does.
  for (let attempt = 0; ; attempt++) {
    const node = await core.readNodeStatus({ name });
    const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
    node.status = { ...node.status, conditions: [...others, readyCondition(ready, new Date())] };
    try {
      await core.replaceNodeStatus({ name, body: node });
      return;
    } catch (err) {
      if ((err as { code?: number }).code !== 409 || attempt >= 10) throw err;
    }
  }
}

export function hasTaint(node: V1Node, key: string): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === key);
}

/** Events about a Node (recorded in "default", as upstream records Node events). */
export async function nodeEvents(admin: KubeConfig, name: string, reason: string): Promise<CoreV1Event[]> {
  const core = admin.makeApiClient(CoreV1Api);
  const list = await core.listNamespacedEvent({
    namespace: 'default',
    fieldSelector: `involvedObject.name=${name},reason=${reason}`,
  });
  return list.items;
}

export async function deleteNodes(admin: KubeConfig, names: readonly string[]): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  await Promise.allSettled(names.map((name) => core.deleteNode({ name })));
}
