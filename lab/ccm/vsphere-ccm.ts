// wasm-ccm's flags for plugins/vsphere against a vCenter (vcsim in the tests): the same vsphere.conf upstream reads, but
// without an account (the plugin holds no credential), and a `vsphere` credentials entry the host logs in with: its
// password in a file beside it, the vCenter's CA trusted for the entry's one host, the server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type VcenterAccount, vsphereConf, type VsphereTopology } from '../peers/index.ts';
import { builtPlugin } from '../plugins/index.ts';

/** The credentials file with one `vsphere` entry for `account` (its password in a file of its own), in `dir`. */
export function vsphereCredentialsFile(dir: string, account: VcenterAccount): string {
  writeFileSync(join(dir, 'vcenter-password'), account.password, { mode: 0o600 });
  const entry = {
    name: 'vcenter',
    vsphere: {
      server: account.server,
      username: account.username,
      passwordFile: 'vcenter-password',
      caFile: account.caFile,
    },
  };
  const file = join(dir, 'credentials.json');
  writeFileSync(file, JSON.stringify({ credentials: [entry] }), { mode: 0o600 });
  return file;
}

/** The vsphere.conf (no account) and credentials file in a new directory under `parent`, and the flags naming them. */
export function vspherePluginArgs(parent: string, account: VcenterAccount, topology: VsphereTopology): string[] {
  const dir = mkdtempSync(join(parent, 'vsphere-plugin-'));
  const config = join(dir, 'vsphere.conf');
  writeFileSync(config, vsphereConf(account.server, topology));
  return [
    '--cloud-provider=vsphere',
    `--plugin=${builtPlugin('vsphere')}`,
    `--cloud-config=${config}`,
    `--plugin-credentials=${vsphereCredentialsFile(dir, account)}`,
    `--plugin-allowed-hosts=${account.server}`,
  ];
}
