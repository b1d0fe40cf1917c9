// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// ccm_http_bytes (ABI 1.3) end to end with frames written by the test: http_bytes hands its input to the host as the
// request frame unchanged and outputs the answer frame as it came, so malformed frames and binary bodies reach the
// host exactly as a plugin could send them. The other exports misuse the two imports in one way each.
import { ccm_http_answer_read, ccm_http_bytes } from "@wasm-ccm/plugin-sdk/assembly/host/imports";
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
