// The V8 heap limits of a plugin worker. V8 counts the worker's Wasm linear memory as external memory against a limit
// derived from the worker's old-generation size: once the linear memory passes about half of it, every memory.grow
// runs a full GC. A guest growing its memory page by page then spends most of its time in GC, far less with a larger
// old generation; and during such a GC storm V8 does not act on terminate(), so a timed-out grower's worker ran on for
// tens of seconds after its deadline (bench/plugin-runtime/deadline-overrun.ts measures both). So the old generation is sized for
// the JS heap the worker is meant to have (`workerHeapMb`) plus twice the linear memory it may hold (the cap times the
// instances it holds: runtime/load-plugin.ts passes both multiplied). The JS heap itself stays
// small whatever the guest does (the kernel's blocks per call, tables and variables are capped); the V8 limit is the
// backstop behind those caps.
export interface WorkerResourceLimits {
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb: number;
  stackSizeMb: number;
}

export function workerResourceLimits(workerHeapMb: number, memoryCapBytes: number): WorkerResourceLimits {
  const memoryCapMb = Math.ceil(memoryCapBytes / (1024 * 1024));
  return { maxOldGenerationSizeMb: workerHeapMb + 2 * memoryCapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
}
