// Test module: the SDK's exports without a registered provider.
export * from "@wasm-ccm/plugin-sdk/exports";
