// The Wasm exports of a provider plugin: `export * from "@wasm-ccm/plugin-sdk/exports";` in its entry file.
export * from './assembly/exports/exports.generated';
