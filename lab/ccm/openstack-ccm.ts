// wasm-ccm with the OpenStack plugin (plugins/openstack) wired the way OCCM is: one cloud.conf in OCCM's format, its
// [Global] section holding the Keystone login, is both --cloud-config and the source of the host's `keystone`
// credentials entry (so the same file can run openstack-cloud-controller-manager beside it). The host logs in, hands
// the plugin the catalog and the file without its password, and allows the catalog's hosts (hostsFromCatalog).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtPlugin, type KeystonePasswordLogin } from '../plugins/index.ts';

export const OPENSTACK_PLUGIN = builtPlugin('openstack');

export interface OpenStackCloudConfOptions {
  /** The project user's password login (user and project in domain Default). */
  login: KeystonePasswordLogin;
  /** [Route] router-id: the router whose extra routes carry the pod CIDRs. */
  routerId?: string;
  /** More sections in OCCM's format, appended as given ([LoadBalancer], [Networking], [Environment], ...). */
  extra?: string;
}

/** OCCM's cloud.conf for `options.login`: [Global] auth keys as gophercloud reads them, [Route], then `extra`. */
export function openStackCloudConf(options: OpenStackCloudConfOptions): string {
  const { login } = options;
  const lines = [
    '[Global]',
    `auth-url = ${login.authUrl}`,
    `username = ${login.username}`,
    `password = ${login.password}`,
    'user-domain-name = Default',
    `tenant-name = ${login.projectName}`,
    'tenant-domain-name = Default',
    `region = ${login.region}`,
  ];
  if (options.routerId !== undefined) lines.push('[Route]', `router-id = ${options.routerId}`);
  const text = `${lines.join('\n')}\n`;
  const extra = options.extra ?? '';
  return extra === '' || extra.endsWith('\n') ? text + extra : `${text + extra}\n`;
}

export interface OpenStackCCMFiles {
  /** OCCM's cloud.conf (mode 0600: it holds the password). */
  cloudConfig: string;
  /** The credentials file: one `keystone` entry reading the cloud.conf, its hosts from the catalog. */
  credentials: string;
}

/** Writes the cloud.conf and the credentials file naming it into `dir`, under names prefixed `tag`. */
export function writeOpenStackCCMFiles(dir: string, tag: string, cloudConf: string): OpenStackCCMFiles {
  const cloudConfig = join(dir, `${tag}-cloud.conf`);
  writeFileSync(cloudConfig, cloudConf, { mode: 0o600 });
  const credentials = join(dir, `${tag}-credentials.json`);
  const entry = {
    name: 'openstack',
    hostsFromCatalog: true,
    // The lab's APIs are plain http on loopback.
    insecure: true,
    keystone: { cloudConfigFile: cloudConfig },
  };
  writeFileSync(credentials, JSON.stringify({ credentials: [entry] }), { mode: 0o600 });
  return { cloudConfig, credentials };
}

/**
 * The flags that run the OpenStack plugin from its built module with `files`: no --plugin-allowed-hosts, since the
 * entry's catalog gives them. `callTimeout` (a Go duration) raises the host's deadline above the plugin's wait budget
 * for a load balancer to become ACTIVE (cloud.conf's [Environment] OCCM_WAIT_LB_ACTIVE_STEPS).
 */
export function openStackPluginArgs(files: OpenStackCCMFiles, callTimeout?: string): string[] {
  return [
    '--cloud-provider=openstack',
    `--plugin=${OPENSTACK_PLUGIN}`,
    `--cloud-config=${files.cloudConfig}`,
    `--plugin-credentials=${files.credentials}`,
    ...(callTimeout === undefined ? [] : [`--plugin-call-timeout=${callTimeout}`]),
  ];
}

/**
 * A --plugin-config provider entry for the OpenStack plugin from `source` (a file or a ConfigMap) with `files`:
 * the same cloud.conf and credentials as openStackPluginArgs gives on the command line.
 */
export function openStackProvider(
  name: string,
  source: Record<string, unknown>,
  files: OpenStackCCMFiles,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    source,
    credentials: { file: files.credentials },
    cloudConfigFile: files.cloudConfig,
    ...extra,
  };
}
