// Caps a module's linear memory before it is compiled. Extism enforces no limit and a guest can otherwise grow its
// memory to ~4 GiB; with the maximum rewritten to the cap, `memory.grow` past it returns -1 inside the guest.
import { encodeUnsigned, WasmFormatError } from './leb128.ts';
import { type MemoryLimits, readModule, SectionId, type WasmModuleInfo } from './module-reader.ts';
import { concatBytes, encodeLimits, rewriteSection } from './section-rewrite.ts';

export const WASM_PAGE_BYTES = 65_536;

export class MemoryPolicyError extends Error {
  override name = 'MemoryPolicyError';
  readonly code = 'MemoryLimit';
}

export interface MemoryCapResult {
  /** The module to compile: the input itself when nothing needed rewriting. */
  bytes: Uint8Array;
  /** The maximum the module declared, in pages (undefined: none). */
  declaredMaxPages: number | undefined;
  /** The maximum the compiled module will have, in pages. */
  effectiveMaxPages: number;
  rewritten: boolean;
}

/**
 * Returns the module with its memory's maximum set to min(declared, cap). Refuses imported memories (their size
 * would be ours to choose and the plugin would depend on it), 64-bit and shared memories, more than one memory, and
 * a minimum above the cap.
 */
export function capLinearMemory(
  bytes: Uint8Array,
  capBytes: number,
  info: WasmModuleInfo = readModule(bytes),
): MemoryCapResult {
  const capPages = Math.floor(capBytes / WASM_PAGE_BYTES);
  if (capPages < 1) throw new RangeError(`memory cap ${capBytes} bytes is below one Wasm page`);
  const imported = info.imports.find((i) => i.descriptor.kind === 'memory');
  if (imported) {
    throw new MemoryPolicyError(
      `the module imports its memory (${imported.module}.${imported.name}); a plugin must define its own memory`,
    );
  }
  if (info.memories.length === 0) {
    return { bytes, declaredMaxPages: undefined, effectiveMaxPages: 0, rewritten: false };
  }
  if (info.memories.length > 1)
    throw new MemoryPolicyError(`the module defines ${info.memories.length} memories; one is allowed`);
  const memory = info.memories[0] as MemoryLimits;
  if (memory.memory64) throw new MemoryPolicyError('64-bit memories are not supported');
  if (memory.shared) throw new MemoryPolicyError('shared memories are not supported');
  if (memory.minPages > capPages) {
    throw new MemoryPolicyError(
      `the module needs ${formatPages(memory.minPages)} of memory at start, above the cap of ${formatPages(capPages)}`,
    );
  }
  if (memory.maxPages !== undefined && memory.maxPages <= capPages) {
    return { bytes, declaredMaxPages: memory.maxPages, effectiveMaxPages: memory.maxPages, rewritten: false };
  }
  const section = info.sections.find((s) => s.id === SectionId.memory);
  if (!section) throw new WasmFormatError('memory section not found although a memory was read');
  const content = concatBytes([encodeUnsigned(1), encodeLimits(memory.minPages, capPages)]);
  const rebuilt = rewriteSection(bytes, section, [{ start: section.contentStart, end: section.end, bytes: content }]);
  return { bytes: rebuilt, declaredMaxPages: memory.maxPages, effectiveMaxPages: capPages, rewritten: true };
}

function formatPages(pages: number): string {
  const mib = (pages * WASM_PAGE_BYTES) / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(2)} MiB`;
}
