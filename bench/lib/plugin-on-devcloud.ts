// The devcloud plugin loaded in this process (one instance, no spare) against a devcloud in a worker thread of it, with
// the token brokered from a credentials file as the CCM does: what the benchmarks of single plugin calls share. The
// devcloud thread is named DEVCLOUD_THREAD so that its CPU can be told apart (threadCpuNs). With `sigv4`, the plugin
// talks to a front that checks SigV4 signatures (sigv4-front.ts) and the credentials file holds an AWS key
// (awsSigV4) instead of the token: the host signs every request, as it does for an AWS provider.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type LoadedPlugin, loadPlugin } from '../../host/src/plugin/index.ts';
import { buildPlugin, discoverPlugins } from '../../scripts/build-plugins.ts';
import type { DevcloudThreadData, DevcloudThreadReady } from './devcloud-thread.ts';

export const DEVCLOUD_THREAD = 'devcloud';

export interface PluginOnDevcloud {
  plugin: LoadedPlugin;
  /** The module's path (built first when none was given). */
  pluginPath: string;
  /** devcloud's URL and its running instances. */
  cloud: DevcloudThreadReady;
  /** Where the plugin's requests go: devcloud, or with `sigv4` the SigV4 front. */
  apiUrl: string;
  token: string;
  /** The credentials file the plugin's broker reads (token for devcloud's host). */
  credentialsFile: string;
  /** Closes the plugin, stops devcloud's thread and removes the credentials. */
  stop(): Promise<void>;
}

export interface PluginOnDevcloudOptions {
  /** Sign every request with an AWS key instead of sending the bearer token. */
  sigv4?: boolean;
}

const SIGV4_SCOPE = { region: 'dc-east-1', service: 'devcloud' };

export async function pluginOnDevcloud(
  instances: number,
  pluginPath?: string,
  options: PluginOnDevcloudOptions = {},
): Promise<PluginOnDevcloud> {
  if (pluginPath === undefined) {
    const devcloud = discoverPlugins().find((p) => p.name === 'devcloud');
    if (!devcloud) throw new Error('plugins/devcloud not found');
    pluginPath = (await buildPlugin(devcloud)).outFile;
  }
  const token = randomBytes(16).toString('hex');
  const key = {
    accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  const sigv4 = options.sigv4 ? { key, scope: SIGV4_SCOPE } : undefined;
  const thread = new Worker(new URL('./devcloud-thread.ts', import.meta.url), {
    workerData: { instances, token, ...(sigv4 ? { sigv4 } : {}) } satisfies DevcloudThreadData,
    name: DEVCLOUD_THREAD,
  });
  const stopThread = async (): Promise<void> => {
    thread.postMessage('stop');
    await new Promise((resolve) => thread.once('exit', resolve));
  };
  const cloud = await new Promise<DevcloudThreadReady>((resolve, reject) => {
    thread.once('message', (m: DevcloudThreadReady) => resolve(m));
    thread.once('error', reject);
  });
  const dir = mkdtempSync(join(tmpdir(), 'wccm-bench-plugin-'));
  const credentialsFile = join(dir, 'credentials.json');
  const apiUrl = cloud.signedUrl ?? cloud.url;
  const host = new URL(apiUrl).host;
  writeFileSync(join(dir, 'access-key-id'), key.accessKeyId);
  writeFileSync(join(dir, 'secret-access-key'), key.secretAccessKey);
  const awsSigV4 = { accessKeyIdFile: 'access-key-id', secretAccessKeyFile: 'secret-access-key', ...SIGV4_SCOPE };
  const credential = sigv4 ? { awsSigV4 } : { bearerToken: token };
  // devcloud serves plain http on loopback.
  const entry = { name: 'dc', hosts: [host], ...credential, insecure: true };
  writeFileSync(credentialsFile, JSON.stringify({ credentials: [entry] }));
  let plugin: LoadedPlugin;
  try {
    plugin = await loadPlugin({
      source: { path: pluginPath },
      cloudConfig: JSON.stringify({ url: apiUrl, region: 'dc-east-1', zone: 'dc-east-1a' }),
      clusterName: 'kubernetes',
      allowedHosts: [host],
      credentials: { file: credentialsFile, reloadIntervalMs: 0 },
      pool: { size: 1 },
    });
  } catch (err) {
    await stopThread();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    plugin,
    pluginPath,
    cloud,
    apiUrl,
    token,
    credentialsFile,
    async stop() {
      await plugin.close();
      await stopThread();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
