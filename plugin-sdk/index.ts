// The package root AssemblyScript resolves `@wasm-ccm/plugin-sdk` to; the SDK itself lives in assembly/.
export * from './assembly/index';
