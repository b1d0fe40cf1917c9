// The hot-swap part of test/e2e/openstack/ccm.test.ts: wasm-ccm running the service controller with the OpenStack
// plugin read from a ConfigMap (--plugin-config, the same cloud.conf and Keystone login as the --plugin run), serving
// /debug/plugins and /metrics on loopback; and what tells a failed reconcile.
import type { CoreV1Api } from '@kubernetes/client-node';
import {
  CCMProcess,
  debugPlugins,
  httpsGet,
  type OpenStackCCMFiles,
  openStackProvider,
  PLUGIN_NAMESPACE,
  putPluginConfigMap,
  writePluginConfig,
} from '../../../../lab/ccm/index.ts';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';
import { freePort } from '../../../../lab/process/index.ts';

export const PLUGIN_KEY = 'openstack.wasm';

export interface SwapCCMOptions {
  info: ControlPlaneInfo;
  token: string;
  core: CoreV1Api;
  files: OpenStackCCMFiles;
  configMap: string;
  module: Uint8Array;
  /** The plugin's call deadline (a Go duration), above its wait budget for a load balancer. */
  callTimeout: string;
  /** CCM flags beyond the plugin's and the serving ones. */
  args: readonly string[];
}

export interface SwapCCM {
  ccm: CCMProcess;
  configMap: string;
  /** https://127.0.0.1:<port> */
  base: string;
  /** The Prometheus text of /metrics. */
  metrics(): Promise<string>;
  /** Stops the CCM and deletes the ConfigMap; resolves with the CCM's exit code. */
  stop(): Promise<number | null>;
}

/** Puts `module` in the ConfigMap and starts wasm-ccm with provider `openstack` from it; resolves once it serves. */
export async function startSwapCCM(options: SwapCCMOptions): Promise<SwapCCM> {
  const { info, core, configMap } = options;
  await putPluginConfigMap(core, configMap, PLUGIN_KEY, options.module);
  const source = { configMap: { namespace: PLUGIN_NAMESPACE, name: configMap, key: PLUGIN_KEY } };
  const provider = openStackProvider('openstack', source, options.files, {
    limits: { callTimeout: options.callTimeout },
  });
  const config = writePluginConfig(info.dir, configMap, { providers: [provider] });
  const port = await freePort();
  const ccm = new CCMProcess({
    info,
    token: options.token,
    args: [
      '--cloud-provider=openstack',
      `--plugin-config=${config}`,
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--delegated-auth=false',
      ...options.args,
    ],
  });
  const base = `https://127.0.0.1:${port}`;
  const stop = async (): Promise<number | null> => {
    const code = await ccm.stop();
    await core.deleteNamespacedConfigMap({ name: configMap, namespace: PLUGIN_NAMESPACE }).catch(() => undefined);
    return code;
  };
  try {
    await ccm.ready(120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { ccm, configMap, base, metrics: async () => (await httpsGet(`${base}/metrics`)).body, stop };
}

/** The serving version of provider `openstack` on /debug/plugins. */
export async function servingVersionOf(base: string): Promise<string | undefined> {
  return (await debugPlugins(base)).find((p) => p.name === 'openstack')?.version;
}

/** Warning events of a failed reconcile in `namespace`: a failed ensure or delete, a failed node sync. */
export async function failedReconciles(core: CoreV1Api, namespace: string): Promise<string[]> {
  const list = await core.listNamespacedEvent({ namespace });
  return list.items
    .filter((e) => e.reason === 'SyncLoadBalancerFailed' || e.reason === 'UpdateLoadBalancerFailed')
    .map((e) => `${e.involvedObject.name}: ${e.reason}: ${e.message ?? ''}`);
}

/** The samples of `metric` in Prometheus text whose value is not 0, as their lines. */
export function nonZeroSamples(text: string, metric: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))
    .filter((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) !== 0);
}
