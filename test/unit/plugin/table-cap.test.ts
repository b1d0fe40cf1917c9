// The table cap: tables live on the worker's V8 heap, so their size is judged and capped before compiling.
import { describe, expect, it } from 'vitest';
import { encodeUnsigned } from '../../../host/src/plugin/module/leb128.ts';
import { readModule } from '../../../host/src/plugin/module/module-reader.ts';
import { capTables, TablePolicyError } from '../../../host/src/plugin/module/table-cap.ts';
import { assembleWat } from '../../../lab/plugins/index.ts';

const growable = (table: string): Uint8Array =>
  assembleWat(
    `(module
      ${table}
      (func (export "grow") (param i32) (result i32) (table.grow $t (ref.null func) (local.get 0)))
      (func (export "size") (result i32) (table.size $t)))`,
    ['reference-types'],
  );

interface TableExports {
  grow: (n: number) => number;
  size: () => number;
}

async function instantiate(bytes: Uint8Array): Promise<TableExports> {
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(bytes));
  return instance.exports as unknown as TableExports;
}

// A module with one function and a table of 4, whose element section is `segment` (one segment, raw bytes).
function withElementSegment(segment: number[]): Uint8Array {
  const section = (id: number, content: number[]): number[] => [id, ...encodeUnsigned(content.length), ...content];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 0, 0]),
    ...section(3, [1, 0]),
    ...section(4, [1, 0x70, 0x00, 4]),
    ...section(9, [1, ...segment]),
    ...section(10, [1, 2, 0, 0x0b]),
  ]);
}

describe('table reader', () => {
  it('reads each table, its limits and where they sit', () => {
    const bytes = assembleWat('(module (table $a 3 funcref) (table $b 1 7 externref))', ['reference-types']);
    const [a, b] = readModule(bytes).tables;
    expect(a).toMatchObject({ refType: 'funcref', minEntries: 3, maxEntries: undefined, table64: false });
    expect(b).toMatchObject({ refType: 'externref', minEntries: 1, maxEntries: 7 });
    expect([...bytes.subarray(b?.limitsStart, b?.limitsEnd)]).toEqual([0x01, 0x01, 0x07]);
  });

  // Every encoding of an element segment (flags 0 to 7), each checked valid by V8 first.
  it.each([
    ['active, table 0, function indices', [0x00, 0x41, 0x00, 0x0b, 2, 0, 0], 2],
    ['passive, function indices', [0x01, 0x00, 3, 0, 0, 0], 3],
    ['active, explicit table, function indices', [0x02, 0x00, 0x41, 0x01, 0x0b, 0x00, 1, 0], 1],
    ['declarative, function indices', [0x03, 0x00, 1, 0], 1],
    ['active, table 0, expressions', [0x04, 0x41, 0x00, 0x0b, 2, 0xd2, 0, 0x0b, 0xd0, 0x70, 0x0b], 2],
    ['passive, expressions', [0x05, 0x70, 1, 0xd2, 0, 0x0b], 1],
    ['active, explicit table, expressions', [0x06, 0x00, 0x41, 0x00, 0x0b, 0x70, 1, 0xd0, 0x70, 0x0b], 1],
    ['declarative, expressions', [0x07, 0x70, 2, 0xd2, 0, 0x0b, 0xd2, 0, 0x0b], 2],
  ])('counts the entries of an element segment: %s', (_form, segment, entries) => {
    const bytes = withElementSegment(segment);
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(readModule(bytes).elementEntries).toBe(entries);
  });

  it('refuses what it cannot read instead of skipping it', () => {
    // An instruction that is not constant in the offset expression, and unknown segment flags.
    expect(() => readModule(withElementSegment([0x00, 0x20, 0x00, 0x0b, 1, 0]))).toThrow(
      /unsupported instruction 0x20 in a constant expression/,
    );
    expect(() => readModule(withElementSegment([0x08, 0x00]))).toThrow(/unsupported element segment flags 8/);
    // A shared table (flags 0x03).
    const shared = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 4, 5, 1, 0x70, 0x03, 1, 2]);
    expect(() => readModule(shared)).toThrow(/unsupported table limits flags 0x3/);
  });
});

describe('table cap', () => {
  it('adds the cap as maximum to a table without one, and table.grow past it fails inside the guest', async () => {
    const bytes = growable('(table $t 1 funcref)');
    const capped = capTables(bytes, 100);
    expect(capped).toMatchObject({ effectiveMaxEntries: [100], rewritten: true });
    expect(readModule(capped.bytes).tables[0]).toMatchObject({ minEntries: 1, maxEntries: 100 });
    const guest = await instantiate(capped.bytes);
    expect(guest.grow(99)).toBe(1);
    expect(guest.grow(1)).toBe(-1);
    expect(guest.size()).toBe(100);
    // The original grows freely: the cap is what stops it.
    expect((await instantiate(bytes)).grow(1000)).toBe(1);
  });

  // Function-references forms V8 accepts: a table with an initializer expression (0x40 0x00 prefix), and a typed
  // nullable reference table. Both exported as "t" so their growth can be tried from JS.
  it.each([
    ['with an initializer', [0x40, 0x00, 0x70, 0x00, 0x02, 0xd0, 0x70, 0x0b], 'funcref'],
    ['of a typed reference', [0x63, 0x70, 0x00, 0x02], 'ref null'],
  ])('caps a table %s', (_form, entry, refType) => {
    const section = (id: number, content: number[]): number[] => [id, content.length, ...content];
    const bytes = Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      ...section(4, [1, ...entry]),
      ...section(7, [1, 1, 0x74, 0x01, 0x00]),
    ]);
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(readModule(bytes).tables[0]).toMatchObject({ refType, minEntries: 2, maxEntries: undefined });
    const capped = capTables(bytes, 50);
    expect(readModule(capped.bytes).tables[0]).toMatchObject({ minEntries: 2, maxEntries: 50 });
    const table = new WebAssembly.Instance(new WebAssembly.Module(capped.bytes)).exports.t as WebAssembly.Table;
    expect(table.grow(48)).toBe(2);
    expect(() => table.grow(1)).toThrow(RangeError);
  });

  it('lowers a maximum above the cap and keeps one below it, byte for byte', () => {
    expect(capTables(growable('(table $t 1 1000000 funcref)'), 100).effectiveMaxEntries).toEqual([100]);
    const low = growable('(table $t 1 10 funcref)');
    const kept = capTables(low, 100);
    expect(kept).toMatchObject({ effectiveMaxEntries: [10], rewritten: false });
    expect(kept.bytes).toBe(low);
  });

  it('shares the cap between several tables, so all together stay under it', async () => {
    const bytes = assembleWat(
      `(module (table $a 10 funcref) (table $b 20 externref) (table $c 1 5 funcref)
        (func (export "growA") (param i32) (result i32) (table.grow $a (ref.null func) (local.get 0)))
        (func (export "growB") (param i32) (result i32) (table.grow $b (ref.null extern) (local.get 0))))`,
      ['reference-types'],
    );
    const capped = capTables(bytes, 100);
    expect(capped.effectiveMaxEntries).toEqual([33, 43, 5]);
    const instance = await WebAssembly.instantiate(await WebAssembly.compile(capped.bytes));
    const { growA, growB } = instance.exports as unknown as Record<string, (n: number) => number>;
    expect(growA?.(24)).toBe(-1);
    expect(growA?.(23)).toBe(10);
    expect(growB?.(23)).toBe(20);
    expect(growB?.(1)).toBe(-1);
  });

  it('refuses a table that starts above the cap, too many element entries, and imported or 64-bit tables', () => {
    const huge = assembleWat('(module (table 10000000 funcref))');
    expect(() => capTables(huge, 10_000)).toThrow(TablePolicyError);
    expect(() => capTables(huge, 10_000)).toThrow(
      "the module's tables need 10000000 entries at start, above the cap of 10000 table entries",
    );
    const elements = assembleWat(`(module (table 1 funcref) (func $f) (elem func ${'$f '.repeat(300)}))`, [
      'bulk-memory',
      'reference-types',
    ]);
    expect(() => capTables(elements, 200)).toThrow(/element segments hold 300 entries, above the cap of 200/);
    expect(capTables(elements, 300).effectiveMaxEntries).toEqual([300]);
    expect(readModule(elements).elementEntries).toBe(300);
    const imported = assembleWat('(module (import "env" "table" (table 1 funcref)))');
    expect(() => capTables(imported, 100)).toThrow(/imports a table \(env\.table\)/);
    const table64 = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 4, 4, 1, 0x70, 0x04, 1]);
    expect(() => capTables(table64, 100)).toThrow(/64-bit table/);
  });
});
