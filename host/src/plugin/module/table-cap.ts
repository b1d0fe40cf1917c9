// Caps a module's tables before it is compiled. A table's entries live on the worker's V8 heap (not in the capped
// linear memory): `(table 10000000 funcref)` or a `table.grow` of millions of entries runs that heap past its limit,
// and V8 then aborts the whole process, not just the worker. So the entries of all tables together are bounded:
// a table's minimum and the element segments must fit under the cap, and every table's maximum is rewritten so that
// `table.grow` past it returns -1 inside the guest.
import { type DefinedTable, readModule, SectionId, type WasmModuleInfo } from './module-reader.ts';
import { type ByteReplacement, encodeLimits, rewriteSection } from './section-rewrite.ts';

export class TablePolicyError extends Error {
  override name = 'TablePolicyError';
  readonly code = 'TableLimit';
}

export interface TableCapResult {
  /** The module to compile: the input itself when nothing needed rewriting. */
  bytes: Uint8Array;
  /** Each defined table's maximum after capping, in entries. */
  effectiveMaxEntries: number[];
  rewritten: boolean;
}

/**
 * Returns the module with every table's maximum lowered so that all tables together hold at most `capEntries`
 * entries. A single table gets min(declared maximum, cap); several share the room left above their minimums equally.
 * Refuses imported and 64-bit tables, minimums above the cap, and element segments holding more entries than it.
 */
export function capTables(
  bytes: Uint8Array,
  capEntries: number,
  info: WasmModuleInfo = readModule(bytes),
): TableCapResult {
  if (!Number.isSafeInteger(capEntries) || capEntries < 0)
    throw new RangeError(`table cap ${capEntries} is not a count`);
  const imported = info.imports.find((i) => i.descriptor.kind === 'table');
  if (imported) {
    throw new TablePolicyError(
      `the module imports a table (${imported.module}.${imported.name}); a plugin must define its own`,
    );
  }
  const { tables } = info;
  const table64 = tables.findIndex((t) => t.table64);
  if (table64 >= 0) throw new TablePolicyError(`table ${table64} is a 64-bit table; they are not supported`);
  const minimums = tables.reduce((sum, t) => sum + t.minEntries, 0);
  if (minimums > capEntries) {
    throw new TablePolicyError(
      `the module's tables need ${minimums} entries at start, above the cap of ${capEntries} table entries`,
    );
  }
  if (info.elementEntries > capEntries) {
    throw new TablePolicyError(
      `the module's element segments hold ${info.elementEntries} entries, above the cap of ${capEntries} table entries`,
    );
  }
  const share = tables.length === 0 ? 0 : Math.floor((capEntries - minimums) / tables.length);
  const maxima = tables.map((t) => Math.min(t.maxEntries ?? Infinity, t.minEntries + share));
  const replacements: ByteReplacement[] = [];
  tables.forEach((table: DefinedTable, index) => {
    const max = maxima[index] as number;
    if (table.maxEntries !== max) {
      replacements.push({ start: table.limitsStart, end: table.limitsEnd, bytes: encodeLimits(table.minEntries, max) });
    }
  });
  if (replacements.length === 0) return { bytes, effectiveMaxEntries: maxima, rewritten: false };
  const section = info.sections.find((s) => s.id === SectionId.table);
  if (!section) throw new RangeError('table section not found although tables were read');
  return { bytes: rewriteSection(bytes, section, replacements), effectiveMaxEntries: maxima, rewritten: true };
}
