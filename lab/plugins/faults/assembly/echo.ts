// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// A minimal well-formed plugin for the call-path benchmark and the long-run test: describe, initialize, and raw
// exports that echo their input, do nothing, or make one HTTP request to the URL they are given.
import { Host } from "@extism/as-pdk";
import { readInput } from "@wasm-ccm/plugin-sdk/assembly/host/io";
import { httpGet, inputText, outputBytes, outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"1.0","providerName":"echo","version":"1.0.0","capabilities":[],"hasClusterID":false}}');
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"ok":{}}');
  return 0;
}

export function bench_noop(): i32 {
  outputBytes(new Uint8Array(2));
  return 0;
}

export function bench_echo(): i32 {
  outputBytes(readInput());
  return 0;
}

/** bench_echo reading the input through the Extism kernel (as-pdk, 8 bytes per host call), as SDKs before ABI 1.1 did. */
export function bench_echo_kernel(): i32 {
  outputBytes(Host.input());
  return 0;
}

/** Input: a URL. Output: ccm_http's raw answer. */
export function bench_http(): i32 {
  outputText(httpGet(inputText()));
  return 0;
}
