// V8 13.6 (Node 24.x up to at least 24.21.0) can free a Wasm-to-JS import wrapper twice: its code GC marks a wrapper
// dying while another isolate looks it up in the process-wide wrapper cache, and the process aborts
// (`Check failed: jit_page...` in ThreadIsolation::UnregisterWasmAllocation) or takes a SIGSEGV (nodejs/node#66366,
// fixed in V8 by 9b8ca54d5a, "[wasm] Fix lookup of wrappers marked is_dying", not backported). Plugin workers are
// isolates that instantiate, tier up their imports' wrappers and die all the time, so a CCM would hit it: a
// deadline test aborts its process about 1 run in 45 on two busy cores. Without code GC nothing is marked dying.
//
// Node warns that V8 flags changed at run time may do nothing or worse; this one is read where V8 decides whether
// to start a code GC (WasmEngine::AddPotentiallyDeadCode), so from the call on no GC starts, which
// test/unit/plugin/wasm-code-gc.test.ts checks.
//
// What it costs: code V8 would collect stays allocated: Liftoff code replaced by optimized code, and import wrappers
// (one per import signature, shared by every instance). `npm run bench:instance-churn` measures the RSS.
import { setFlagsFromString } from 'node:v8';

let disabled = false;

/** Turns V8's Wasm code GC off for the whole process; idempotent. Call before any plugin worker starts. */
export function disableWasmCodeGC(): void {
  if (disabled) return;
  setFlagsFromString('--no-wasm-code-gc');
  disabled = true;
}
