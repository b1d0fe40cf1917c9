// How a plugin is loaded: where it comes from, what it may reach, which credentials the host brokers for it, and the
// limits it runs under. Everything but the source has a default.
import type { Registry } from 'prom-client';
import type { Logger } from '../../log/logger.ts';
import type { MethodName } from '../../abi/index.ts';
import { DEFAULT_MAX_MODULE_MB } from '../module/module-gzip.ts';
import type { PluginSource } from '../module/plugin-source.ts';
import type { ReplicaGuard } from '../broker/http-broker.ts';

export interface PluginLimits {
  /** Largest module, after decompressing a gzipped one (decompression stops here). Default 64 MiB. */
  maxModuleBytes: number;
  /** Linear memory cap per instance (the module's maximum is rewritten to it). Default 256 MiB. */
  memoryBytes: number;
  /**
   * Entries of all of an instance's tables together (each table's maximum is rewritten under it): tables live on the
   * worker's V8 heap, which the linear-memory cap does not cover. Default 10,000.
   */
  maxTableEntries: number;
  /** Host-side memory a guest may take through Extism's kernel (alloc) within one call. Default 64 MiB. */
  kernelMemoryBytes: number;
  /** Largest request sent to a plugin. Default 16 MiB. */
  maxInputBytes: number;
  /**
   * Largest answer accepted from a plugin. Default 4 MiB: the largest real answer (listRoutes, 10,000 routes) is 3 MB,
   * and the main thread parses what it is given (sandbox/answer-scan.ts bounds its values, this its bytes).
   */
  maxOutputBytes: number;
  /** Largest HTTP request a plugin may send: the ccm_http JSON block or the ccm_http_bytes frame. Default 4 MiB. */
  maxHttpRequestBytes: number;
  /** Largest HTTP response body handed to a plugin. Default 8 MiB. */
  maxHttpResponseBytes: number;
  /** Timeout of one HTTP request when the plugin asks for none; also the most it may ask for. Default 10 s / 30 s. */
  httpTimeoutMs: number;
  maxHttpTimeoutMs: number;
  /** Redirects followed per request (each within the allow-list). Default 5. */
  maxRedirects: number;
  /** Deadline of a call (default 10 s), per method where given. */
  callTimeoutMs: number;
  methodTimeoutsMs: Partial<Record<MethodName, number>>;
  /** How long a caller waits for a free instance. Default: the call's deadline. */
  queueTimeoutMs: number | undefined;
  /** Starting an instance (worker, instantiation, ccm_initialize). Default 30 s. */
  startTimeoutMs: number;
  /** V8 heap of each instance's worker (its JS, not the guest's linear memory). Default 64 MiB old space. */
  workerHeapMb: number;
  /**
   * Instances one worker thread holds (sandbox/plugin-worker.ts). Default 16: a burst of calls waiting on the cloud
   * starts a worker per 16 instances; 1 gives every instance a thread of its own (a call that computes past its
   * deadline then takes no other call down with it).
   */
  instancesPerWorker: number;
  /** Log records forwarded per call (the rest are counted and dropped). Default 100, each at most 16 KiB. */
  maxLogRecordsPerCall: number;
  maxLogRecordBytes: number;
  /**
   * Bytes of log records forwarded per call, counted as the host writes them (JSON-escaped: a NUL is 6 bytes); a
   * record that does not fit in what is left is dropped and counted. Default 64 KiB.
   */
  maxLogBytesPerCall: number;
}

export const DEFAULT_LIMITS: PluginLimits = {
  maxModuleBytes: DEFAULT_MAX_MODULE_MB * 1024 * 1024,
  memoryBytes: 256 * 1024 * 1024,
  maxTableEntries: 10_000,
  kernelMemoryBytes: 64 * 1024 * 1024,
  maxInputBytes: 16 * 1024 * 1024,
  maxOutputBytes: 4 * 1024 * 1024,
  maxHttpRequestBytes: 4 * 1024 * 1024,
  maxHttpResponseBytes: 8 * 1024 * 1024,
  httpTimeoutMs: 10_000,
  maxHttpTimeoutMs: 30_000,
  maxRedirects: 5,
  callTimeoutMs: 10_000,
  methodTimeoutsMs: {},
  queueTimeoutMs: undefined,
  startTimeoutMs: 30_000,
  workerHeapMb: 64,
  instancesPerWorker: 16,
  maxLogRecordsPerCall: 100,
  maxLogRecordBytes: 16 * 1024,
  maxLogBytesPerCall: 64 * 1024,
};

export interface CredentialOptions {
  /** JSON file (a mounted Secret) with {"credentials": [...]}: see broker/credential-file.ts. */
  file: string;
  /** How often the file is re-read. Default 10 s; 0 turns polling off. */
  reloadIntervalMs?: number;
  /**
   * Explicit opt-in to give the plugin a secret itself: Extism config key -> credential name. The plugin reads it
   * with config_get. Without this, credentials never leave the main thread.
   */
  exposeToPlugin?: Record<string, string>;
}

export interface PluginLoadOptions {
  source: PluginSource;
  /** SHA-256 (hex, optionally `sha256:`-prefixed) the bytes must have; checked before compiling. */
  sha256?: string;
  /** Passed to ccm_initialize: the --cloud-config file's content. */
  cloudConfig?: string;
  /** Passed to ccm_initialize. Default 'kubernetes'. */
  clusterName?: string;
  /** Hosts the plugin may reach with ccm_http: exact `host` or `host:port`. Default none. */
  allowedHosts?: string[];
  credentials?: CredentialOptions;
  /**
   * Instances serving calls concurrently (default 2); the fewest kept when idle (default 1: an idle CCM keeps one
   * worker thread, and a call that finds every instance busy waits for one to start or to finish); and how long an
   * instance above that level may idle before it is stopped (default 60 s). See sandbox/instance-set.ts.
   */
  pool?: { size?: number; minInstances?: number | undefined; idleTimeoutMs?: number | undefined };
  limits?: Partial<PluginLimits>;
  logger?: Logger;
  /** Where the wasm_ccm_plugin_* and wasm_ccm_cloud_api_* metrics are registered; none when absent. */
  registry?: Registry;
  /**
   * The configuration's name for the provider this module serves (the metrics' `provider` label); default the name
   * the module describes itself by.
   */
  provider?: string;
  /** Sees the method and URL of every HTTP request the plugin asks for (the conformance kit counts mutations). */
  onPluginRequest?: (method: string, url: string) => void;
  /** TLS options for the broker's HTTPS agent (for example a private CA). */
  tls?: { ca?: string | Buffer | Array<string | Buffer> };
  /** The replica's identity, sent with every plugin HTTP request, and its lease, which gates cloud changes. */
  replica?: ReplicaGuard;
}

export function resolveLimits(limits: Partial<PluginLimits> | undefined): PluginLimits {
  const resolved = { ...DEFAULT_LIMITS, ...limits, methodTimeoutsMs: { ...limits?.methodTimeoutsMs } };
  for (const [key, value] of Object.entries(resolved)) {
    if (typeof value === 'number' && (!Number.isFinite(value) || value <= 0)) {
      throw new RangeError(`plugin limit ${key} must be a positive number, got ${value}`);
    }
  }
  if (!Number.isInteger(resolved.instancesPerWorker)) {
    throw new RangeError(`plugin limit instancesPerWorker must be an integer, got ${resolved.instancesPerWorker}`);
  }
  return resolved;
}
