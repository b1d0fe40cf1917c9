// From verified bytes to a compiled module the workers can instantiate: read the binary, apply the import policy,
// cap the linear memory (rewriting the module if needed), then compile. Compilation happens once, on the main
// thread; the WebAssembly.Module is shared with every worker of the pool.
import { checkImports } from '../policy/import-policy.ts';
import { capLinearMemory, type MemoryCapResult } from '../wasm/memory-cap.ts';
import { readModule, type WasmExport } from '../wasm/module-reader.ts';

export interface PreparedModule {
  module: WebAssembly.Module;
  exports: readonly WasmExport[];
  memory: MemoryCapResult;
}

export async function prepareModule(bytes: Uint8Array, memoryCapBytes: number): Promise<PreparedModule> {
  const info = readModule(bytes);
  checkImports(info);
  const memory = capLinearMemory(bytes, memoryCapBytes, info);
  const module = await WebAssembly.compile(memory.bytes);
  return { module, exports: info.exports, memory };
}

export function exportedFunctionNames(exports: readonly WasmExport[]): Set<string> {
  return new Set(exports.filter((e) => e.kind === 'function').map((e) => e.name));
}
