// Differential fuzzing of the host's code reader (host/src/plugin/module/code-reader.ts) against V8 and binaryen: base
// modules from binaryen's random module generator (wasm-opt --translate-to-fuzz, seeded) with the features the reader
// reads, tail calls included, and mutants of their code sections. For every module V8 accepts, the reader must read
// every instruction to the end of every body (a reader out of step with V8 would fail there, or hide an instruction in
// an immediate), and must find a tail call exactly when binaryen's disassembly has one. Time: binaryen's modules are
// small, so the reader's linearity is tested on large bodies of its own (test/unit/plugin/code-reader.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import binaryen from 'binaryen';
import { findInstruction } from '../../../host/src/plugin/module/code-reader.ts';
import { readModule } from '../../../host/src/plugin/module/module-reader.ts';
import { Random } from '../json/index.ts';

const WASM_OPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.bin/wasm-opt');
const TAIL_CALLS = new Set([0x12, 0x13, 0x15]);
const CODE_SECTION = 10;

const FEATURE_SETS: Record<string, string[]> = {
  core: ['--enable-bulk-memory', '--enable-sign-ext', '--enable-nontrapping-float-to-int', '--enable-multivalue'],
  simd: ['--enable-bulk-memory', '--enable-sign-ext', '--enable-simd', '--enable-relaxed-simd', '--enable-multimemory'],
  references: ['--enable-bulk-memory', '--enable-reference-types', '--enable-multivalue', '--enable-mutable-globals'],
};

export interface CodeFuzzOptions {
  /** Base modules per feature set (each costs a wasm-opt run of about a second). */
  bases: number;
  /** Mutants tried per base module. */
  mutants: number;
  seed: number;
}

export interface CodeFuzzFinding {
  module: string;
  problem: string;
}

export interface CodeFuzzReport {
  modules: number;
  mutantsValid: number;
  /** Modules V8 accepts that the reader refuses by design: GC and typed reference types or instructions. */
  allowedRefusals: number;
  withTailCalls: number;
  findings: CodeFuzzFinding[];
  durationMs: number;
}

export async function runCodeFuzz(options: CodeFuzzOptions): Promise<CodeFuzzReport> {
  const started = performance.now();
  const random = new Random(options.seed);
  const report: CodeFuzzReport = {
    modules: 0,
    mutantsValid: 0,
    allowedRefusals: 0,
    withTailCalls: 0,
    findings: [],
    durationMs: 0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'code-fuzz-'));
  try {
    for (const [set, flags] of Object.entries(FEATURE_SETS)) {
      for (let i = 0; i < options.bases; i++) {
        const base = generate(dir, random, [...flags, ...(random.chance(0.5) ? ['--enable-tail-call'] : [])]);
        await check(`${set}#${i}`, base, report);
        for (let m = 0; m < options.mutants; m++) {
          const mutant = mutate(base, random);
          if (mutant === undefined || !WebAssembly.validate(mutant)) continue;
          report.mutantsValid++;
          await check(`${set}#${i}/mutant ${m}`, mutant, report);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report.durationMs = performance.now() - started;
  return report;
}

function generate(dir: string, random: Random, flags: string[]): Uint8Array {
  const seed = join(dir, 'seed.bin');
  const out = join(dir, 'module.wasm');
  writeFileSync(
    seed,
    Uint8Array.from({ length: random.int(2_000, 40_000) }, () => random.int(0, 255)),
  );
  execFileSync(WASM_OPT, [seed, '--translate-to-fuzz', ...flags, '-o', out], { stdio: 'pipe' });
  return new Uint8Array(readFileSync(out));
}

// One byte of the code section replaced: by a random byte, or by an opcode the reader must find or step over.
function mutate(base: Uint8Array, random: Random): Uint8Array | undefined {
  const span = readModule(base).sections.find((s) => s.id === CODE_SECTION);
  if (span === undefined || span.end - span.contentStart < 2) return undefined;
  const mutant = base.slice();
  const at = random.int(span.contentStart + 1, span.end - 1);
  mutant[at] = random.chance(0.3) ? random.pick([0x12, 0x13, 0x15, 0x0b, 0x02, 0x41, 0xfc, 0xfd]) : random.int(0, 255);
  return mutant;
}

async function check(name: string, bytes: Uint8Array, report: CodeFuzzReport): Promise<void> {
  report.modules++;
  if (!WebAssembly.validate(bytes)) {
    report.findings.push({ module: name, problem: 'V8 refuses a generated base module' });
    return;
  }
  const expectTail = hasTailCall(bytes);
  if (expectTail) report.withTailCalls++;
  const info = readModule(bytes);
  let found: boolean;
  try {
    // Nothing is wanted: every instruction of every body is read.
    await findInstruction(bytes, info, new Set());
    found = (await findInstruction(bytes, info, TAIL_CALLS)) !== undefined;
  } catch (err) {
    if (refusedByDesign(err)) report.allowedRefusals++;
    else report.findings.push({ module: name, problem: `the reader refuses a module V8 accepts: ${String(err)}` });
    return;
  }
  if (found !== expectTail) {
    report.findings.push({
      module: name,
      problem: `tail call found: ${found}, in binaryen's disassembly: ${expectTail}`,
    });
  }
}

// The reader refuses the GC proposal's types (abstract heap type shorthands 0x69-0x74 but funcref and externref,
// typed references 0x63/0x64) and instructions (0xfb), which V8 accepts: a mutated byte often makes one.
function refusedByDesign(err: unknown): boolean {
  const message = err instanceof Error ? err.message : '';
  const type = /^unsupported (?:value|block) type 0x([0-9a-f]+)/.exec(message);
  if (type !== null) {
    const code = parseInt(type[1] as string, 16);
    return code >= 0x63 && code <= 0x74 && code !== 0x6f && code !== 0x70;
  }
  return /^instruction 0xfb at offset/.test(message);
}

function hasTailCall(bytes: Uint8Array): boolean {
  const module = binaryen.readBinaryWithFeatures(bytes, binaryen.Features.All);
  try {
    return /\(return_call/.test(module.emitText());
  } finally {
    module.dispose();
  }
}
