// The plugin runtime's public surface: load a provider plugin, and the options and errors that come with it.
export { WasmProvider } from './provider/wasm-provider.ts';
export { loadPlugin, PluginLoadError } from './runtime/load-plugin.ts';
export type { LoadedPlugin } from './runtime/loaded-plugin.ts';
export { DEFAULT_LIMITS } from './options.ts';
export type { CredentialOptions, PluginLimits, PluginLoadOptions } from './options.ts';
export type { PluginSource } from './module/plugin-source.ts';
// How a plugin's {error: {...}} envelope maps onto the Provider errors (the conformance kit reports with it).
export { errorFromPlugin } from './envelope/decode-answer.ts';
