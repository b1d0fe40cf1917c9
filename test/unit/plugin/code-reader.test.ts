// The code reader steps over every instruction's immediates exactly and refuses what it cannot read, so the
// instruction policy sees every instruction a module has and nothing that is only an immediate's byte.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findInstruction } from '../../../host/src/plugin/module/code-reader.ts';
import { encodeUnsigned } from '../../../host/src/plugin/module/leb128.ts';
import { readModule } from '../../../host/src/plugin/module/module-reader.ts';
import { runCodeFuzz } from '../../../lab/fuzz/wasm-code/index.ts';

const TAIL_CALLS = new Set([0x12, 0x13, 0x15]);

function section(id: number, content: number[]): number[] {
  return [id, ...encodeUnsigned(content.length), ...content];
}

/** A module of one `() -> ()` function whose body (locals and instructions, final `end` included) is `body`. */
function moduleWithBody(body: number[]): Uint8Array {
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x00, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(10, [0x01, ...encodeUnsigned(body.length), ...body]),
  ]);
}

async function find(bytes: Uint8Array, wanted = TAIL_CALLS): Promise<number | undefined> {
  return (await findInstruction(bytes, readModule(bytes), wanted))?.opcode;
}

describe('the code reader', () => {
  it('reads the SDK-built plugins to the end and finds no tail call in them', async () => {
    for (const name of ['aws', 'devcloud', 'example']) {
      const bytes = new Uint8Array(
        readFileSync(new URL(`../../../plugins/${name}/build/${name}.wasm`, import.meta.url)),
      );
      expect(await find(bytes), name).toBeUndefined();
    }
  });

  it('finds a tail call, and not the same byte where it is an immediate', async () => {
    // i32.const 18 (0x41 0x12), drop, end: 0x12 is return_call's opcode, here a constant.
    const constant = moduleWithBody([0x00, 0x41, 0x12, 0x1a, 0x0b]);
    expect(WebAssembly.validate(constant)).toBe(true);
    expect(await find(constant)).toBeUndefined();
    // return_call 0, end.
    const tail = moduleWithBody([0x00, 0x12, 0x00, 0x0b]);
    expect(WebAssembly.validate(tail)).toBe(true);
    expect(await find(tail)).toBe(0x12);
  });

  it('refuses a typed reference block type, whose heap type would otherwise be read as an instruction', async () => {
    // block (result (ref null 0x41...)): V8 reads 0x63 and a heap type; a one-byte reading would take 0x41 for
    // i32.const and step over the return_call after it.
    const bytes = moduleWithBody([0x00, 0x02, 0x63, 0x41, 0x12, 0x00, 0x0b, 0x0b]);
    await expect(find(bytes)).rejects.toThrow('unsupported block type 0x63');
  });

  it('refuses an instruction it does not know, and a body that does not end at its last byte', async () => {
    await expect(find(moduleWithBody([0x00, 0xfb, 0x1c, 0x0b]))).rejects.toThrow(
      /instruction 0xfb at offset \d+ is not one the host reads/,
    );
    await expect(find(moduleWithBody([0x00, 0x0b, 0x01]))).rejects.toThrow('before its last byte');
    await expect(find(moduleWithBody([0x00, 0x02, 0x40, 0x0b]))).rejects.toThrow('unexpected end of a function body');
  });

  it('reads in time linear in the code (a body of 4n instructions takes about 4 times as long as one of n)', async () => {
    const timeOf = async (pairs: number): Promise<number> => {
      // i32.const 1; drop; ... and as many nested blocks: the reader keeps a depth, not a stack.
      const body = [0x00];
      for (let i = 0; i < pairs; i++) body.push(0x41, 0x01, 0x1a, 0x02, 0x40);
      for (let i = 0; i < pairs; i++) body.push(0x0b);
      body.push(0x0b);
      const bytes = moduleWithBody(body);
      await find(bytes, new Set()); // warm-up
      // The fastest of five: another process or a collection can only slow a run down, so the minimum is the
      // reader's own time on a loaded machine too.
      let fastest = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await find(bytes, new Set());
        fastest = Math.min(fastest, performance.now() - started);
      }
      return fastest;
    };
    const small = await timeOf(50_000);
    const large = await timeOf(200_000);
    console.info(`50,000 instruction pairs: ${small.toFixed(1)} ms; 200,000: ${large.toFixed(1)} ms`);
    expect(large).toBeLessThan(Math.max(small, 5) * 8);
  });
});

describe('fuzz:wasm-code', () => {
  it('agrees with V8 and binaryen on seeded random modules and their mutants', async () => {
    const report = await runCodeFuzz({ bases: 1, mutants: 150, seed: 28 });
    expect(report.findings).toEqual([]);
    // The run did its work: three base modules and valid mutants of them were read.
    expect(report.modules).toBeGreaterThan(30);
    expect(report.mutantsValid).toBeGreaterThan(20);
  }, 120_000);
});
