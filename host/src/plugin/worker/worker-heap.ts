// The V8 heap limits of a plugin worker. V8 counts the worker's Wasm linear memory as external memory against a limit
// derived from the worker's old-generation size: once the linear memory passes about half of it, every memory.grow
// runs a full GC. Measured growing 256 MiB page by page: with a 64 MB old generation ~75 ms per MiB past 32 MiB (19 s
// in all), with 512 MB ~4 ms per MiB; and during such a GC storm V8 does not act on terminate() (a timed-out grower's
// worker stopped 20-50 s after its deadline). So the old generation is sized for the JS heap the worker is meant to
// have (`workerHeapMb`) plus twice the linear-memory cap. The JS heap itself stays small whatever the guest does (the
// kernel's blocks per call, tables and variables are capped); the V8 limit is the backstop behind those caps.
export interface WorkerResourceLimits {
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb: number;
  stackSizeMb: number;
}

export function workerResourceLimits(workerHeapMb: number, memoryCapBytes: number): WorkerResourceLimits {
  const memoryCapMb = Math.ceil(memoryCapBytes / (1024 * 1024));
  return { maxOldGenerationSizeMb: workerHeapMb + 2 * memoryCapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
}
