// Shared set-up for the conformance-kit and devcloud-plugin tests: an embedded devcloud, the files the host needs
// (credentials, cloud config, fixture) in a temporary directory, and ABI objects with every field filled in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildPlugin, discoverPlugins } from '../../../scripts/build-plugins.ts';
import { compileAssemblyScript } from '../../../plugin-sdk/tools/compile.ts';

export const TOKEN = 'conformance-test-token';
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** plugins/devcloud/build/devcloud.wasm, rebuilt first if a source changed. */
export async function devcloudPluginPath(): Promise<string> {
  const plugin = discoverPlugins().find((p) => p.name === 'devcloud');
  if (!plugin) throw new Error('plugins/devcloud is not discovered by build-plugins');
  return (await buildPlugin(plugin)).outFile;
}

export type BrokenVariant =
  'index' | 'ignores-nodes' | 'ignores-exclusions' | 'every-instance' | 'duplicates' | 'leaks-on-delete';

/**
 * A deliberately broken provider, compiled once and cached until its source changes: `index` breaks three contract
 * rules; the others break one that only the cloud shows (assembly/backends-lb.ts): `ignores-nodes`,
 * `ignores-exclusions` and `every-instance` get the backends wrong, `duplicates` creates another load balancer on
 * every ensure, `leaks-on-delete` leaves its load balancer in the cloud.
 */
export async function brokenPluginPath(variant: BrokenVariant = 'index'): Promise<string> {
  const dir = join(REPO, 'test', 'fixtures', 'broken-provider');
  const outFile = join(dir, 'build', variant === 'index' ? 'broken-provider.wasm' : `broken-${variant}.wasm`);
  await compileAssemblyScript(join(dir, 'assembly', `${variant}.ts`), {
    optimize: false,
    outFile,
    cacheDir: join(dir, 'build', 'cache'),
  });
  return outFile;
}

export interface CloudEnv {
  cloud: Devcloud;
  dir: string;
  /** host:port of the cloud: the plugin's allow-list and the credential's host. */
  host: string;
  credentialsFile: string;
  cloudConfig: string;
  cloudConfigFile: string;
  close(): Promise<void>;
}

export async function startCloud(config: Record<string, unknown> = {}): Promise<CloudEnv> {
  const cloud = await startDevcloud({ token: TOKEN });
  const host = new URL(cloud.url).host;
  const dir = mkdtempSync(join(tmpdir(), 'wccm-conformance-'));
  const credentialsFile = join(dir, 'credentials.json');
  writeFileSync(
    credentialsFile,
    JSON.stringify({ credentials: [{ name: 'devcloud', hosts: [host], bearerToken: TOKEN, insecure: true }] }),
  );
  const cloudConfig = JSON.stringify({ url: cloud.url, region: 'dc-east-1', zone: 'dc-east-1a', ...config });
  const cloudConfigFile = join(dir, 'cloud.json');
  writeFileSync(cloudConfigFile, cloudConfig);
  return {
    cloud,
    dir,
    host,
    credentialsFile,
    cloudConfig,
    cloudConfigFile,
    close: async () => {
      await cloud.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadOptions {
  clusterName?: string;
  cloudConfig?: string;
  /** Default true: attach the token through the host's credentials file. */
  withCredentials?: boolean;
}

export function loadDevcloudPlugin(path: string, env: CloudEnv, options: LoadOptions = {}): Promise<WasmProvider> {
  return WasmProvider.load({
    source: { path },
    cloudConfig: options.cloudConfig ?? env.cloudConfig,
    clusterName: options.clusterName ?? 'kubernetes',
    allowedHosts: [env.host],
    credentials: options.withCredentials === false ? undefined : { file: env.credentialsFile, reloadIntervalMs: 0 },
    pool: { size: 1 },
  });
}

export { abiNode as node, abiService as service } from '../../../lab/plugins/index.ts';

/** What a rejected promise was, for assertions on provider errors. */
export async function failure(
  p: Promise<unknown>,
): Promise<{ code: string; message: string; retryAfterSeconds?: number }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: string; message: string; retryAfterSeconds?: number };
    return { code: e.code ?? 'none', message: e.message, retryAfterSeconds: e.retryAfterSeconds };
  }
  throw new Error('expected the call to fail, it succeeded');
}

/** A devcloud API call with the test token, for setting up what the plugin must cope with. */
export async function cloudApi(env: CloudEnv, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${env.cloud.url}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}
