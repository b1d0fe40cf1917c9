// The only imports a wasm-ccm plugin has besides Extism's kernel (plugin-sdk/ABI.md, "Host functions"). Each JSON block
// travels as an Extism memory offset; ccm_input_read (ABI 1.1) and ccm_http_bytes / ccm_http_answer_read (ABI 1.3) take
// pointers into the plugin's own memory instead; ccm_sleep_ms (ABI 1.4) takes a plain number.
// This file uses function decorators, which only AssemblyScript understands.

@external("extism:host/user", "ccm_http")
export declare function ccm_http(request: u64): u64;

// ABI 1.3: one framed request (http-frame.ts) at `request`; returns the byte length of the framed answer, which the
// next ccm_http_answer_read copies out. ccm_http above stays for plugins built with SDKs before 1.3.
@external("extism:host/user", "ccm_http_bytes")
export declare function ccm_http_bytes(request: usize, length: i32): i32;

@external("extism:host/user", "ccm_http_answer_read")
export declare function ccm_http_answer_read(address: usize, length: i32): void;

@external("extism:host/user", "ccm_log")
export declare function ccm_log(record: u64): void;

@external("extism:host/user", "ccm_now_ms")
export declare function ccm_now_ms(): i64;

@external("extism:host/user", "ccm_input_read")
export declare function ccm_input_read(address: usize, length: i32): void;

// ABI 1.4: blocks this plugin instance for `ms` milliseconds (0 to 60,000) without using CPU.
@external("extism:host/user", "ccm_sleep_ms")
export declare function ccm_sleep_ms(ms: i32): void;
