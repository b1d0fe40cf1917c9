// The plugin runtime's one door: everything outside host/src/plugin imports from here (the architecture test holds
// it). Inside, six wings, each depending only on those listed before it:
//   module/   a .wasm's bytes into a checked, capped module (readers, policies, gzip, signature);
//   broker/   the host side of a plugin's HTTP: allow-list, credentials, signing, redaction, the lease fence;
//   config/   --plugin-config and the limits and options a load takes;
//   sandbox/  running guest code: the worker thread (sandbox/worker/), its channel, instances, answers;
//   runtime/  loadPlugin: a module, a broker and instances into a Provider;
//   swap/     sources watched for new revisions, hot swap, shadow runs, the set of serving plugins.

// Load a provider plugin, and the options and errors that come with it.
export { WasmProvider } from './runtime/wasm-provider.ts';
export { loadPlugin, PluginLoadError } from './runtime/load-plugin.ts';
export type { LoadedPlugin } from './runtime/loaded-plugin.ts';
export { DEFAULT_LIMITS } from './config/options.ts';
export type { CredentialOptions, PluginLimits, PluginLoadOptions } from './config/options.ts';
export type { PluginSource } from './module/plugin-source.ts';
// How a plugin's {error: {...}} envelope maps onto the Provider errors (the conformance kit reports with it).
export { errorFromPlugin } from './sandbox/decode-answer.ts';

// The serving plugins of a running CCM and the lease check its broker asks before a cloud write.
export { PluginSet, type PluginStatus } from './swap/plugin-set.ts';
export type { ReplicaGuard } from './broker/http-broker.ts';

// Reading a module as the loader does (the kit's checks before a load).
export { DEFAULT_MAX_MODULE_MB, unpackModule } from './module/module-gzip.ts';
export { exportedFunctionNames } from './module/prepare-module.ts';
export { readModule } from './module/module-reader.ts';

// Credentials and the allow-list, as the broker holds them (the kit's reachability check).
export { CredentialStore } from './broker/credential-store.ts';
export { HostAllowList } from './broker/allow-list.ts';
export { CredentialFileError } from './broker/credential-file.ts';

// --plugin-config: parsing and the rules its fields share with the flags.
export { loadPluginConfigFile, PluginConfigError } from './config/parse.ts';
export {
  checkAllowedHost,
  checkCredentialsText,
  durationProblem,
  integerProblem,
  LIMIT_RANGES,
  type Range,
  SHA256_PIN,
  SHA256_PIN_WHAT,
} from './config/rules.ts';
export { singlePluginConfig } from './config/single.ts';
export type { PluginConfig } from './config/types.ts';

// Building blocks the lab reuses to talk to the emulators and to build test modules as the runtime reads them: the
// broker's SigV4 signer (requests to moto) and the LEB128 encoder of module sections.
export { type AwsAccessKey, awsUriEncode, SigV4Signer } from './broker/sigv4-signer.ts';
export { encodeUnsigned } from './module/leb128.ts';

// The runtime's metric families, registered by what serves calls; the metric catalog (host/src/app) registers them
// all at once for the reference.
export { createPluginMetrics } from './runtime/plugin-metrics.ts';
export { createSwapMetrics } from './swap/swap-metrics.ts';
export { cloudApiMetrics } from './broker/cloud-api-metrics.ts';
