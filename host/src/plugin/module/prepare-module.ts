// From verified bytes to a compiled module the workers can instantiate: read the binary, apply the import and
// instruction policies, cap the linear memory and the tables (rewriting the module if needed), then compile.
// Compilation happens once, on the main thread; the WebAssembly.Module is shared with every worker of the pool.
import { checkImports } from './import-policy.ts';
import { checkInstructions } from './instruction-policy.ts';
import { configureWasmEngine } from './engine-flags.ts';
import { capLinearMemory, type MemoryCapResult } from './memory-cap.ts';
import { readModule, type WasmExport } from './module-reader.ts';
import { capTables, type TableCapResult } from './table-cap.ts';

export interface PreparedModule {
  module: WebAssembly.Module;
  exports: readonly WasmExport[];
  memory: MemoryCapResult;
  tables: TableCapResult;
}

export interface ModuleCaps {
  memoryBytes: number;
  /** Entries of all tables together. */
  tableEntries: number;
}

export async function prepareModule(bytes: Uint8Array, caps: ModuleCaps): Promise<PreparedModule> {
  const info = readModule(bytes);
  checkImports(info);
  await checkInstructions(bytes, info);
  const memory = capLinearMemory(bytes, caps.memoryBytes, info);
  // The table cap rewrites offsets it read: it reads the module again when the memory cap rewrote it.
  const tables = capTables(memory.bytes, caps.tableEntries, memory.rewritten ? readModule(memory.bytes) : info);
  configureWasmEngine();
  const module = await WebAssembly.compile(tables.bytes);
  return { module, exports: info.exports, memory, tables };
}

export function exportedFunctionNames(exports: readonly WasmExport[]): Set<string> {
  return new Set(exports.filter((e) => e.kind === 'function').map((e) => e.name));
}
