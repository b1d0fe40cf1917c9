// `--plugin=<file>` with its `--plugin-*` flags is shorthand for a configuration with one provider from a file, so
// there is a single code path: the file is watched and swapped exactly like a provider of --plugin-config.
import { resolve } from 'node:path';
import { normalizeSha256 } from './rules.ts';
import type { LimitDefaults, PluginConfig } from './types.ts';

export interface SinglePluginFlags {
  /** --cloud-provider: also the provider's name here. */
  name: string;
  plugin: string;
  sha256: string;
  allowedHosts: string[];
  credentialsFile: string;
  cloudConfig: string;
  limits: LimitDefaults;
}

export function singlePluginConfig(flags: SinglePluginFlags): PluginConfig {
  return {
    providers: [
      {
        name: flags.name,
        source: { kind: 'file', path: resolve(flags.plugin) },
        sha256: flags.sha256 === '' ? undefined : normalizeSha256(flags.sha256),
        signature: undefined,
        allowedHosts: flags.allowedHosts,
        credentialsFile: flags.credentialsFile === '' ? undefined : flags.credentialsFile,
        limits: { ...flags.limits },
        cloudConfig: flags.cloudConfig,
        capabilities: undefined,
        shadow: undefined,
      },
    ],
    defaultProvider: flags.name,
    loadBalancerClasses: new Map(),
  };
}
