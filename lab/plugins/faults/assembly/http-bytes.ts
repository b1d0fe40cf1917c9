// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// ccm_http_bytes (ABI 1.3) end to end with frames written by the test: http_bytes hands its input to the host as the
// request frame unchanged and outputs the answer frame as it came, so malformed frames and binary bodies reach the
// host exactly as a plugin could send them. The other exports misuse the two imports in one way each.
import { Memory } from "@extism/as-pdk";
import { store_u8 } from "@extism/as-pdk/lib/env";
import { ccm_http, ccm_http_answer_read, ccm_http_bytes } from "@wasm-ccm/plugin-sdk/assembly/host/imports";
import { readInput } from "@wasm-ccm/plugin-sdk/assembly/host/io";
import { outputBytes, outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"1.3","providerName":"http-bytes","version":"1.0.0","capabilities":[],"hasClusterID":false}}');
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"ok":{}}');
  return 0;
}

/** Input: a request frame. Output: the host's answer frame. */
export function http_bytes(): i32 {
  const request = readInput();
  const size = ccm_http_bytes(request.dataStart, request.length);
  const answer = new Uint8Array(size);
  ccm_http_answer_read(answer.dataStart, size);
  outputBytes(answer);
  return 0;
}

/** A request range past the end of linear memory. */
export function http_bytes_bad_range(): i32 {
  ccm_http_bytes(<usize>0xfffffff0, 64);
  return 0;
}

/** Input: a request frame. Asks for one byte more than the answer has. */
export function http_answer_overread(): i32 {
  const request = readInput();
  const size = ccm_http_bytes(request.dataStart, request.length);
  const answer = new Uint8Array(size + 1);
  ccm_http_answer_read(answer.dataStart, size + 1);
  return 0;
}

/** Input: a request frame. Makes the request and leaves the answer unread. */
export function http_bytes_unread(): i32 {
  const request = readInput();
  outputText(ccm_http_bytes(request.dataStart, request.length).toString());
  return 0;
}

/** Reads one byte of an answer without a request in this call. */
export function http_answer_only(): i32 {
  const answer = new Uint8Array(1);
  ccm_http_answer_read(answer.dataStart, 1);
  outputBytes(answer);
  return 0;
}

/**
 * Input: [u32 LE n][n bytes: a request frame][a ccm_http JSON request]. Makes the framed request, then the JSON one
 * before reading the first answer: the answer read is the framed request's. Output: that answer frame.
 */
export function http_bytes_then_json(): i32 {
  const input = readInput();
  const frameLength = load<u32>(input.dataStart);
  const frame = input.subarray(4, 4 + <i32>frameLength);
  const json = input.subarray(4 + <i32>frameLength);
  const size = ccm_http_bytes(frame.dataStart, frame.length);
  const block = Memory.allocate(<u64>json.length);
  store_bytes(block.offset, json);
  ccm_http(block.offset);
  const answer = new Uint8Array(size);
  ccm_http_answer_read(answer.dataStart, size);
  outputBytes(answer);
  return 0;
}

function store_bytes(offset: u64, bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) store_u8(offset + <u64>i, bytes[i]);
}
