// The AWS plugin through the host's runtime (wasm-ccm/testing), set up for a moto environment: its cloud config,
// cluster name, allowed hosts and credentials entries.
import { loadTestPlugin, type TestPlugin } from '../../../../packages/wasm-ccm/src/testing/index.ts';
import type { AwsEnv } from '../../../../lab/peers/index.ts';
import { builtPlugin } from '../../../../lab/plugins/index.ts';

export function loadAwsPlugin(env: AwsEnv, clusterName: string): Promise<TestPlugin> {
  return loadTestPlugin(builtPlugin('aws'), {
    cloudConfig: env.cloudConfig,
    clusterName,
    allowedHosts: env.allowedHosts,
    credentialsFile: env.credentialsFile,
  });
}
