// The only imports a wasm-ccm plugin has besides Extism's kernel (plugin-sdk/ABI.md, "Host functions"). Each JSON block
// travels as an Extism memory offset; ccm_input_read (ABI 1.1) takes a pointer into the plugin's own memory instead.
// This file uses function decorators, which only AssemblyScript understands.

@external("extism:host/user", "ccm_http")
export declare function ccm_http(request: u64): u64;

@external("extism:host/user", "ccm_log")
export declare function ccm_log(record: u64): void;

@external("extism:host/user", "ccm_now_ms")
export declare function ccm_now_ms(): i64;

@external("extism:host/user", "ccm_input_read")
export declare function ccm_input_read(address: usize, length: i32): void;
