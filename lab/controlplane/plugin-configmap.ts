// A provider plugin shipped the way an operator ships it: the module in a ConfigMap (binaryData), which the CCM
// watches and hot-swaps in when it changes.
import type { CoreV1Api } from '@kubernetes/client-node';

export const PLUGIN_NAMESPACE = 'kube-system';

/** Creates or replaces the plugin ConfigMap holding `module` under `key` (and its signature under `<key>.sig`). */
export async function putPluginConfigMap(
  core: CoreV1Api,
  name: string,
  key: string,
  module: Uint8Array,
  signature?: string,
): Promise<void> {
  const body = {
    metadata: { name, namespace: PLUGIN_NAMESPACE },
    binaryData: { [key]: Buffer.from(module).toString('base64') },
    ...(signature === undefined ? {} : { data: { [`${key}.sig`]: signature } }),
  };
  try {
    await core.replaceNamespacedConfigMap({ name, namespace: PLUGIN_NAMESPACE, body });
  } catch (err) {
    if ((err as { code?: number }).code !== 404) throw err;
    await core.createNamespacedConfigMap({ namespace: PLUGIN_NAMESPACE, body });
  }
}
