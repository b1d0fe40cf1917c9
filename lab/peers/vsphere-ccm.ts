// The upstream vSphere cloud-controller-manager (cloud-provider-vsphere's vsphere-cloud-controller-manager v1.36.0,
// built by scripts/build-vsphere.sh) as a child process against a vCenter (vcsim in the tests): a vsphere.conf with
// its own account (upstream logs in itself) and the vCenter's CA, the admin kubeconfig, no serving port.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, type ControlPlaneInfo } from '../controlplane/index.ts';
import { ManagedProcess } from '../process/index.ts';
import { upstreamCCMArgs } from './peer-ccm.ts';

export function vspherePeerBinaryPath(): string {
  return join(cacheDir(), 'bin', 'vsphere-ccm');
}

/** A vCenter and the account that logs in to it: what vsphere.conf and the host's `vsphere` entry name. */
export interface VcenterAccount {
  /** `host:port`. */
  server: string;
  username: string;
  password: string;
  /** PEM file of the CA that signed the vCenter's certificate. */
  caFile: string;
}

/** What a vsphere.conf says besides the account: the datacenters searched and the tag categories of zones. */
export interface VsphereTopology {
  datacenters: readonly string[];
  /** Tag category names (`[Labels]`); zones are looked up only when both are given. */
  zoneCategory?: string;
  regionCategory?: string;
}

// gcfg (the INI dialect upstream reads): inside double quotes only `"` and `\` are escaped.
const quoted = (value: string): string => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/**
 * The INI vsphere.conf upstream reads: one `[VirtualCenter]`, its port, datacenters and the `[Labels]`. With
 * `account`, the user, password and CA file too (upstream's own login); without, none (the plugin's: the host's
 * `vsphere` credentials entry logs in).
 */
export function vsphereConf(server: string, topology: VsphereTopology, account?: VcenterAccount): string {
  const [host, port] = server.split(':') as [string, string | undefined];
  const lines = ['[Global]', `port = ${quoted(port ?? '443')}`, 'insecure-flag = "0"'];
  if (account !== undefined) {
    lines.push(`user = ${quoted(account.username)}`, `password = ${quoted(account.password)}`);
    lines.push(`ca-file = ${quoted(account.caFile)}`);
  }
  lines.push('', `[VirtualCenter ${quoted(host)}]`, `datacenters = ${quoted(topology.datacenters.join(','))}`);
  if (topology.zoneCategory !== undefined && topology.regionCategory !== undefined) {
    lines.push(
      '',
      '[Labels]',
      `region = ${quoted(topology.regionCategory)}`,
      `zone = ${quoted(topology.zoneCategory)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface VspherePeerCCMOptions {
  info: ControlPlaneInfo;
  account: VcenterAccount;
  topology: VsphereTopology;
  /** Flags beyond the cloud provider's (e.g. --controllers=..., --node-monitor-period=1s). */
  args: readonly string[];
}

export class VspherePeerCCM {
  readonly process: ManagedProcess;
  readonly dir: string;

  constructor(options: VspherePeerCCMOptions) {
    const path = vspherePeerBinaryPath();
    if (!existsSync(path)) {
      throw new Error(`the upstream vSphere CCM is not built: expected ${path}. Run 'npm run build:vsphere'.`);
    }
    this.dir = mkdtempSync(join(options.info.dir, 'vsphere-peer-'));
    const config = join(this.dir, 'vsphere.conf');
    writeFileSync(config, vsphereConf(options.account.server, options.topology, options.account), { mode: 0o600 });
    this.process = new ManagedProcess(
      'vsphere-ccm',
      path,
      ['--cloud-provider=vsphere', `--cloud-config=${config}`, ...upstreamCCMArgs(options.info), ...options.args],
      // Only PATH and a HOME of its own: no VSPHERE_* variable of the developer's reaches its config.
      { logPath: join(this.dir, 'vsphere-ccm.log'), env: { PATH: process.env.PATH, HOME: this.dir } },
    );
  }

  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }
}
