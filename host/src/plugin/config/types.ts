// The plugin configuration (--plugin-config) once validated: every path resolved, every file it names read, every
// default filled in. Nothing downstream re-validates it. README.md, "Plugin configuration", documents the format.
import type { KeyObject } from 'node:crypto';
import type { Capability } from '../../abi/index.ts';

export type ProviderSource =
  /** A file, usually a key of a ConfigMap volume (kubelet swaps `<dir>/..data` atomically). */
  | { kind: 'file'; path: string }
  /** A ConfigMap read through the API: `binaryData[key]` holds the module. */
  | { kind: 'configMap'; namespace: string; name: string; key: string };

export interface SignaturePolicy {
  publicKey: KeyObject;
  /**
   * A signature fixed in the configuration (base64). Absent: every module brings its own, next to it — the
   * ConfigMap key `<key>.sig`, or the file `<file>.sig` in the same directory.
   */
  signature: string | undefined;
}

export interface ShadowPolicy {
  /** Read-only calls answered by both plugins before the switch (whichever of calls/seconds comes first). */
  calls: number;
  seconds: number;
}

export interface ProviderLimits {
  callTimeoutMs: number;
  memoryLimitMB: number;
  /** Largest module after decompressing a gzipped one (undefined: 64); decompression stops at it. */
  maxModuleMB?: number | undefined;
  /** Concurrent instances; 0 means one per concurrent sync + 1 (resolved when loading). */
  poolSize: number;
  /** Instances kept when idle, the spare not counted (undefined: the pool's default, 1). */
  poolMinSize?: number | undefined;
  /** Instances above poolMinSize + the spare idle this long are stopped (undefined: the pool's default, 60 s). */
  poolIdleTimeoutMs?: number | undefined;
}

export interface ProviderConfig {
  /** The name this configuration gives the provider (logs, metrics, events, /debug/plugins, loadBalancerClasses). */
  name: string;
  source: ProviderSource;
  /** Lower-case hex SHA-256 the module must have. */
  sha256: string | undefined;
  signature: SignaturePolicy | undefined;
  allowedHosts: string[];
  /** A credentials file (mounted Secret) the host attaches to the plugin's HTTP requests. */
  credentialsFile: string | undefined;
  limits: ProviderLimits;
  /** The text handed to ccm_initialize. */
  cloudConfig: string;
  /**
   * What this provider serves; every module it runs must declare each of these. Undefined: what the first module
   * declares (then fixed: the controllers are built once).
   */
  capabilities: Capability[] | undefined;
  shadow: ShadowPolicy | undefined;
}

export interface PluginConfig {
  providers: ProviderConfig[];
  /** Serves instances, routes, zones, clusters and LoadBalancer Services without a class. */
  defaultProvider: string;
  /** loadBalancerClass -> provider name. Services of other classes are left alone (upstream behaviour). */
  loadBalancerClasses: Map<string, string>;
}

export interface LimitDefaults {
  callTimeoutMs: number;
  memoryLimitMB: number;
  poolSize: number;
}
