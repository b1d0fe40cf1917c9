// Test module: imports functions the host cannot link (log_trace on Extism 1.0.3) or does not provide (WASI).
@external("extism:host/env", "log_trace")
declare function log_trace(offset: u64): void;

@external("wasi_snapshot_preview1", "proc_exit")
declare function proc_exit(code: i32): void;

export function f(): i32 {
  log_trace(0);
  proc_exit(0);
  return 0;
}
