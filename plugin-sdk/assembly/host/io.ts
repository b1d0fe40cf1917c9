// Moving JSON between the plugin and the host over Extism's kernel. as-pdk does the block work; its outputString is not
// used because it sizes the block by UTF-16 length and breaks on non-ASCII text (shared runtime-facts). The input comes
// in with one ccm_input_read instead of as-pdk's Host.input, which makes a host call per 8 bytes (a 700 KiB request
// was ~90,000 calls).
import { Host, Memory } from "@extism/as-pdk";
import { input_length, length } from "@extism/as-pdk/lib/env";
import { JsonWriter } from "../json/writer";
import { ccm_input_read } from "./imports";

/** The call's input (the request JSON). */
export function readInput(): Uint8Array {
  const size = <i32>input_length();
  const bytes = new Uint8Array(size);
  ccm_input_read(bytes.dataStart, size);
  return bytes;
}

/** Sets the call's output to the writer's bytes. */
export function writeOutput(w: JsonWriter): void {
  Host.output(w.view());
}

/** Copies a JSON document into a fresh Extism block for a host function. The caller frees it. */
export function toBlock(w: JsonWriter): Memory {
  const bytes = w.view();
  const mem = Memory.allocate(<u64>bytes.length);
  mem.store(bytes);
  return mem;
}

/** Reads (and frees) a block a host function returned; empty for offset 0. */
export function fromBlock(offset: u64): Uint8Array {
  if (offset == 0) return new Uint8Array(0);
  const mem = new Memory(offset, length(offset));
  const bytes = mem.toUint8Array();
  mem.free();
  return bytes;
}
