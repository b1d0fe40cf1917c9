// V8 flags the plugin runtime needs, set for the whole process before the first plugin module is compiled (Node warns
// that flags changed at run time may do nothing or worse: each one here is read where V8 acts on it later, and a test
// checks that it takes effect).
//
// `--no-wasm-dynamic-tiering`: a plugin call past its deadline ends with Worker.terminate(), which V8 acts on only
// where compiled code checks for interrupts. With dynamic tiering (the default) Liftoff code checks at a loop's back
// edge only when the function's tiering budget runs out, and the budget counts bytes of code run: a loop whose body is
// one bulk instruction (memory.fill or memory.copy of 16 MiB, table.fill, array.new) runs millions of times, each a
// few milliseconds, before it checks, so its worker spun on after terminate() (measured: still running 5 s after, a
// core's worth of CPU). Without dynamic tiering V8 compiles each function with Liftoff, whose code checks at every
// back edge, and then with TurboFan in the background, whose code checks too (test/unit/plugin/stuck-workers.test.ts
// runs each such loop). The one construct TurboFan does not interrupt, a cycle of tail calls, is refused at load
// (module/instruction-policy.ts). What it costs: every function is optimized once at load, on V8's background threads,
// instead of the hot ones later; `npm run bench:plugin-call` and `bench:sandbox-cost` measure the calls.
//
// `--no-wasm-code-gc`: V8 13.6 (Node 24.x up to at least 24.21.0) can free a Wasm-to-JS import wrapper twice: its
// code GC marks a wrapper dying while another isolate looks it up in the process-wide wrapper cache, and the process
// aborts (`Check failed: jit_page...` in ThreadIsolation::UnregisterWasmAllocation) or takes a SIGSEGV
// (nodejs/node#66366, fixed in V8 by 9b8ca54d5a, "[wasm] Fix lookup of wrappers marked is_dying", not backported).
// Plugin workers are isolates that instantiate, tier up their imports' wrappers and die all the time, so a CCM would
// hit it: a deadline test aborted its process about 1 run in 45 on two busy cores. Without code GC nothing is marked
// dying. The flag is read where V8 decides whether to start a code GC (WasmEngine::AddPotentiallyDeadCode), so from
// the call on no GC starts, which test/unit/plugin/wasm-code-gc.test.ts checks. What it costs: code V8 would collect
// stays allocated (import wrappers, one per import signature, shared by every instance); `npm run
// bench:instance-churn` measures the RSS.
import { setFlagsFromString } from 'node:v8';

let configured = false;

/** Sets the plugin runtime's V8 flags for the whole process; idempotent. Call before any plugin module compiles. */
export function configureWasmEngine(): void {
  if (configured) return;
  setFlagsFromString('--no-wasm-code-gc');
  setFlagsFromString('--no-wasm-dynamic-tiering');
  configured = true;
}
