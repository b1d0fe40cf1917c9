// The OpenStack plugin (plugins/openstack) through the host's own runtime, behind what the host gives it: either a
// `keystone` credentials entry (the host logs in to Keystone, writes the catalog into the plugin's Extism config and
// attaches the token), or, for tests without a Keystone, a catalog and a token handed over directly: the token as a
// `headers` credential, the catalog as a credential exposed to the plugin under its config key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MethodName, Requests, Responses } from '../../host/src/abi/index.ts';
import { describeOutcome, type Outcome, Probe } from '../../host/src/conformance/index.ts';
import type { Logger } from '../../host/src/log/logger.ts';
import { loadPlugin } from '../../host/src/plugin/index.ts';
import { builtPlugin } from './built-plugins.ts';

/** What the host writes under keystone.catalog: the catalog's URLs for one region and interface. */
export interface KeystoneCatalog {
  region: string;
  interface: string;
  endpoints: Array<{ type: string; name: string; url: string }>;
}

export const CATALOG_CONFIG_KEY = 'keystone.catalog';

/** A Keystone password login, as a `keystone` credentials entry names it (user and project in domain Default). */
export interface KeystonePasswordLogin {
  authUrl: string;
  username: string;
  password: string;
  projectName: string;
  region: string;
}

export interface OpenStackPluginOptions {
  cloudConfig: string;
  clusterName?: string;
  /** The host logs in itself; the catalog's hosts become the allow-list. */
  keystone?: KeystonePasswordLogin;
  /** Absent: the plugin's config has no catalog (initialize must refuse that). */
  catalog?: KeystoneCatalog;
  /** The config key the catalog is under (default keystone.catalog). */
  catalogKey?: string;
  /** Attached as X-Auth-Token to requests to the catalog's hosts (loopback, plain http). */
  token?: string;
  callTimeoutMs?: number;
  logger?: Logger;
}

/** A plugin answer with an error envelope, as an exception; `code` is the ABI's error code. */
export class OpenStackPluginError extends Error {
  override name = 'OpenStackPluginError';
  readonly code: string;
  constructor(method: MethodName, code: string, message: string) {
    super(`${method} answered ${code}: ${message}`);
    this.code = code;
  }
}

export interface OpenStackPlugin {
  answer<M extends MethodName>(method: M, request: Requests[M]): Promise<Outcome<M>>;
  call<M extends MethodName>(method: M, request: Requests[M]): Promise<Responses[M]>;
  /** "<METHOD> <url>" of every request the plugin made, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** host:port of every endpoint of the catalog. */
export function catalogHosts(catalog: KeystoneCatalog): string[] {
  return [...new Set(catalog.endpoints.map((e) => new URL(e.url).host))];
}

/** A `keystone` credentials entry named openstack, its password in a file beside the credentials file. */
export function keystoneEntry(dir: string, login: KeystonePasswordLogin): Record<string, unknown> {
  writeFileSync(join(dir, 'password'), login.password);
  return {
    name: 'openstack',
    hostsFromCatalog: true,
    // The lab's APIs are plain http on loopback.
    insecure: true,
    keystone: {
      authURL: login.authUrl,
      region: login.region,
      userName: login.username,
      userDomainName: 'Default',
      passwordFile: 'password',
      projectName: login.projectName,
      projectDomainName: 'Default',
    },
  };
}

export async function loadOpenStackPlugin(options: OpenStackPluginOptions): Promise<OpenStackPlugin> {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-openstack-plugin-'));
  const hosts = options.catalog ? catalogHosts(options.catalog) : [];
  const credentials: unknown[] = [];
  if (options.keystone !== undefined) credentials.push(keystoneEntry(dir, options.keystone));
  if (options.token !== undefined && hosts.length > 0) {
    credentials.push({ name: 'openstack', hosts, headers: { 'X-Auth-Token': options.token }, insecure: true });
  }
  if (options.catalog !== undefined) {
    credentials.push({ name: 'catalog', hosts: ['catalog.invalid'], bearerToken: JSON.stringify(options.catalog) });
  }
  const file = join(dir, 'credentials.json');
  writeFileSync(file, JSON.stringify({ credentials }));
  const requests: string[] = [];
  try {
    const plugin = await loadPlugin({
      source: { path: builtPlugin('openstack') },
      cloudConfig: options.cloudConfig,
      clusterName: options.clusterName ?? 'kubernetes',
      allowedHosts: hosts,
      credentials:
        credentials.length > 0
          ? {
              file,
              reloadIntervalMs: 0,
              ...(options.catalog ? { exposeToPlugin: { [options.catalogKey ?? CATALOG_CONFIG_KEY]: 'catalog' } } : {}),
            }
          : undefined,
      pool: { size: 1 },
      limits: options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {},
      logger: options.logger,
      onPluginRequest: (method, url) => requests.push(`${method} ${url}`),
    });
    const probe = new Probe(plugin);
    return {
      answer: (method, request) => probe.call(method, request),
      async call<M extends MethodName>(method: M, request: Requests[M]): Promise<Responses[M]> {
        const outcome = await probe.call(method, request);
        if (outcome.kind === 'ok') return outcome.value;
        if (outcome.kind === 'error') throw new OpenStackPluginError(method, outcome.error.code, outcome.error.message);
        throw new OpenStackPluginError(method, 'ABI_VIOLATION', describeOutcome(outcome));
      },
      requests,
      close: async () => {
        await plugin.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
