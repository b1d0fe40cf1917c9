// The AWS plugin through the host's runtime (wasm-ccm/testing), set up for a moto environment: its cloud config,
// cluster name, allowed hosts and credentials entries.
import { afterAll, beforeAll } from 'vitest';
import { loadTestPlugin, type TestPlugin } from '../../../../packages/wasm-ccm/src/testing/index.ts';
import { type AwsEnv, type AwsEnvOptions, startAwsEnv } from '../../../../lab/peers/index.ts';
import { builtPlugin } from '../../../../lab/plugins/index.ts';

export function loadAwsPlugin(env: AwsEnv, clusterName: string): Promise<TestPlugin> {
  return loadTestPlugin(builtPlugin('aws'), {
    cloudConfig: env.cloudConfig,
    clusterName,
    allowedHosts: env.allowedHosts,
    credentialsFile: env.credentialsFile,
  });
}

/**
 * A test file's moto environment and the AWS plugin loaded against it: started before the file's tests (handed to
 * `started`), closed after them.
 */
export function useAwsPlugin(options: AwsEnvOptions, started: (s: { env: AwsEnv; plugin: TestPlugin }) => void): void {
  let env: AwsEnv | undefined;
  let plugin: TestPlugin | undefined;
  beforeAll(async () => {
    env = await startAwsEnv(options);
    plugin = await loadAwsPlugin(env, options.cluster);
    started({ env, plugin });
  }, 180_000);
  afterAll(async () => {
    await plugin?.close();
    await env?.close();
  });
}
