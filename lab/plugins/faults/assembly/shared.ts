// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc. Imports name only
// `@wasm-ccm/plugin-sdk` (which tsc cannot resolve, so it never reads AssemblyScript sources) and the kernel
// functions are declared here, each decorator behind @ts-ignore as AssemblyScript's own library does.
//
// Helpers shared by the fault-plugin fixtures. They talk to the Extism kernel directly (not through the SDK's
// provider framework) so each fixture can misbehave in exactly one controlled way.
import { readInput } from "@wasm-ccm/plugin-sdk/assembly/host/io";
import { ccm_http, ccm_log } from "@wasm-ccm/plugin-sdk/assembly/host/imports";

// @ts-ignore: decorator
@external("extism:host/env", "alloc")
export declare function alloc(size: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "store_u8")
declare function store_u8(address: u64, value: u8): void;
// @ts-ignore: decorator
@external("extism:host/env", "store_u64")
declare function store_u64(address: u64, value: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "load_u8")
declare function load_u8(address: u64): u8;
// @ts-ignore: decorator
@external("extism:host/env", "load_u64")
declare function load_u64(address: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "length")
declare function length(address: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "output_set")
declare function output_set(address: u64, length: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "config_get")
declare function config_get(key: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "log_info")
declare function log_info(message: u64): void;

export function inputText(): string {
  return String.UTF8.decode(readInput().buffer);
}

function toBlock(bytes: Uint8Array): u64 {
  const address = alloc(<u64>bytes.length);
  let i = 0;
  for (; i + 8 <= bytes.length; i += 8) store_u64(address + <u64>i, load<u64>(bytes.dataStart + <usize>i));
  for (; i < bytes.length; i++) store_u8(address + <u64>i, bytes[i]);
  return address;
}

function textBlock(text: string): u64 {
  return toBlock(Uint8Array.wrap(String.UTF8.encode(text)));
}

function blockText(address: u64): string {
  const size = <i32>length(address);
  const bytes = new Uint8Array(size);
  let i = 0;
  for (; i + 8 <= size; i += 8) store<u64>(bytes.dataStart + <usize>i, load_u64(address + <u64>i));
  for (; i < size; i++) bytes[i] = load_u8(address + <u64>i);
  return String.UTF8.decode(bytes.buffer);
}

export function outputBytes(bytes: Uint8Array): void {
  output_set(toBlock(bytes), <u64>bytes.length);
}

/** Writes `text` as UTF-8 bytes. */
export function outputText(text: string): void {
  outputBytes(Uint8Array.wrap(String.UTF8.encode(text)));
}

/** Sets an output of `size` bytes without writing them (a cheap way to make a huge output). */
export function outputUnwritten(size: u64): void {
  output_set(alloc(size), size);
}

export function escapeJson(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c == 0x22 || c == 0x5c) out += "\\" + String.fromCharCode(c);
    else if (c < 0x20) out += " ";
    else out += String.fromCharCode(c);
  }
  return out;
}

export function answerError(code: string, message: string): void {
  outputText('{"error":{"code":"' + code + '","message":"' + escapeJson(message) + '"}}');
}

/** The string value of `"key":"..."` in a flat JSON text (fixtures only; no unescaping). */
export function field(json: string, key: string): string {
  const marker = '"' + key + '":"';
  const at = json.indexOf(marker);
  if (at < 0) return "";
  const start = at + marker.length;
  const end = json.indexOf('"', start);
  return end < 0 ? "" : json.substring(start, end);
}

/** Sends a GET through ccm_http and returns the host's raw JSON answer. */
export function httpGet(url: string): string {
  const answer = ccm_http(textBlock('{"method":"GET","url":"' + url + '","headers":{},"body":"","timeoutMs":0}'));
  return answer == 0 ? "" : blockText(answer);
}

export function log(level: string, message: string): void {
  ccm_log(textBlock('{"level":"' + level + '","message":"' + escapeJson(message) + '","fields":{"fixture":"yes"}}'));
}

/** Extism's own log_info (not the ABI's ccm_log). */
export function kernelLog(message: string): void {
  log_info(textBlock(message));
}

/** Extism config (config_get): null when the key is not set. */
export function configValue(key: string): string | null {
  const address = config_get(textBlock(key));
  return address == 0 ? null : blockText(address);
}
