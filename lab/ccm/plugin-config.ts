// Provider plugins shipped the way an operator ships them: the module in a ConfigMap (binaryData), and a
// --plugin-config file naming it, with the cloud config, allow-list and brokered credentials of a devcloud.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Devcloud } from '../../devcloud/src/index.ts';

export { PLUGIN_NAMESPACE, putPluginConfigMap } from '../controlplane/index.ts';

/** A provider entry for devcloud `cloud`: its URL as cloud config, the brokered token, the one allowed host. */
export function devcloudProvider(
  dir: string,
  cloud: Devcloud,
  name: string,
  source: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const host = `127.0.0.1:${cloud.port}`;
  const credentials = join(dir, `${name}-${cloud.port}-credentials.json`);
  writeFileSync(
    credentials,
    JSON.stringify({ credentials: [{ name: 'devcloud', hosts: [host], bearerToken: cloud.token, insecure: true }] }),
    { mode: 0o600 },
  );
  return {
    name,
    source,
    allowedHosts: [host],
    credentials: { file: credentials },
    cloudConfig: { url: cloud.url, region: 'dc-east-1' },
    ...extra,
  };
}

export function writePluginConfig(dir: string, tag: string, doc: Record<string, unknown>): string {
  const path = join(dir, `${tag}-plugins.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}
