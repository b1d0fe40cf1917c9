// Which instructions a plugin may contain. Every instruction of the code section is read (module/code-reader.ts) before
// the module is compiled, and the tail calls are refused: a cycle of `return_call`, `return_call_indirect` or
// `return_call_ref` compiled by TurboFan never checks for interrupts, so Worker.terminate() cannot stop it at a call's
// deadline and its thread spins for the life of the process (module/engine-flags.ts says why every other loop stops).
// No SDK wasm-ccm ships emits tail calls; a toolchain that does has a switch to turn them off.
import { findInstruction, type Opcode } from './code-reader.ts';
import type { WasmModuleInfo } from './module-reader.ts';

const REFUSED: ReadonlyMap<Opcode, string> = new Map([
  [0x12, 'return_call'],
  [0x13, 'return_call_indirect'],
  [0x15, 'return_call_ref'],
]);

const REFUSED_OPCODES: ReadonlySet<Opcode> = new Set(REFUSED.keys());

class InstructionPolicyError extends Error {
  override name = 'InstructionPolicyError';
}

/** Rejects with an InstructionPolicyError naming the first refused instruction, or a WasmFormatError for code it cannot read. */
export async function checkInstructions(bytes: Uint8Array, info: WasmModuleInfo): Promise<void> {
  const found = await findInstruction(bytes, info, REFUSED_OPCODES);
  if (found === undefined) return;
  throw new InstructionPolicyError(
    `the module uses tail calls (${REFUSED.get(found.opcode)} at offset ${found.offset}, function body ${found.body}), ` +
      'which the host refuses: a loop of tail calls cannot be stopped at its deadline; build without the tail-call feature',
  );
}
