// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// A provider plugin (instancesV2) that misbehaves on request: ccm_instance_metadata looks at the node's name and does
// exactly one thing wrong (or right). The node's providerID carries a URL for the HTTP cases.
import { ccm_input_read, ccm_now_ms } from "@wasm-ccm/plugin-sdk/assembly/host/imports";
import {
  alloc,
  answerError,
  configValue,
  escapeJson,
  field,
  httpGet,
  inputText,
  kernelLog,
  log,
  outputBytes,
  outputText,
  outputUnwritten,
} from "./shared";

let callsOnThisInstance: i32 = 0;
let initializedWith: string = "";
let initializeInput: string = "";
let hoard: Array<Uint8Array> = [];

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"1.0","providerName":"faulty","version":"0.0.1","capabilities":["instancesV2"],"hasClusterID":true}}');
  return 0;
}

export function ccm_initialize(): i32 {
  initializeInput = inputText();
  initializedWith = field(initializeInput, "clusterName");
  outputText('{"ok":{}}');
  return 0;
}

export function ccm_instance_exists(): i32 {
  outputText('{"ok":{"exists":true}}');
  return 0;
}

export function ccm_instance_shutdown(): i32 {
  outputText('{"ok":{"shutdown":false}}');
  return 0;
}

function metadata(zone: string, region: string): string {
  return '{"ok":{"providerID":"faulty://i-1","instanceType":"small","nodeAddresses":[{"type":"InternalIP","address":"10.0.0.1"}],' +
    '"zone":"' + escapeJson(zone) + '","region":"' + escapeJson(region) + '","additionalLabels":{}}}';
}

function recurse(n: i32): i32 {
  return n == 0 ? 0 : recurse(n + 1) + 1;
}

export function ccm_instance_metadata(): i32 {
  callsOnThisInstance++;
  const request = inputText();
  const name = field(request, "name");
  const url = field(request, "providerID");
  if (name == "ok") {
    outputText(metadata("zone-a", "cluster:" + initializedWith));
  } else if (name == "count") {
    outputText(metadata("zone-a", "calls:" + callsOnThisInstance.toString()));
  } else if (name == "unicode") {
    outputText(metadata("zürich-1 ☁", "東京 — ünïcödé 🚀"));
  } else if (name == "trap") {
    unreachable();
  } else if (name == "loop") {
    while (true) {}
  } else if (name == "stack") {
    recurse(1);
  } else if (name == "bomb") {
    // Grows linear memory until the cap stops it.
    while (true) hoard.push(new Uint8Array(4 << 20));
  } else if (name == "kernel-bomb") {
    // Takes host-side kernel blocks until the budget stops it.
    while (true) alloc(8 << 20);
  } else if (name == "bad-input-address") {
    // Asks the host to copy the input past the end of linear memory.
    ccm_input_read(<usize>0xfffffff0, 16);
    outputText(metadata("zone-a", "copied"));
  } else if (name == "garbage") {
    outputText("this is not JSON {");
  } else if (name == "invalid-utf8") {
    const bytes = new Uint8Array(4);
    bytes[0] = 0x7b; bytes[1] = 0xff; bytes[2] = 0xfe; bytes[3] = 0x7d;
    outputBytes(bytes);
  } else if (name == "schema") {
    outputText('{"ok":{"providerID":42,"zone":"a"}}');
  } else if (name == "huge") {
    outputUnwritten(20 << 20);
  } else if (name == "nonzero") {
    outputText(metadata("zone-a", "r"));
    return 3;
  } else if (name == "no-output") {
    return 0;
  } else if (name == "retry") {
    outputText('{"error":{"code":"Retry","message":"the API is busy","retryAfterSeconds":7}}');
  } else if (name == "notfound") {
    answerError("InstanceNotFound", "no instance for node notfound");
  } else if (name == "invalid") {
    answerError("Invalid", "annotation example.com/size: not a number");
  } else if (name == "elsewhere") {
    answerError("ImplementedElsewhere", "not here");
  } else if (name == "http") {
    answerError("Internal", "answer=" + httpGet(url));
  } else if (name == "init-input") {
    answerError("Internal", "input=" + initializeInput);
  } else if (name == "config") {
    // The config key is in the providerID.
    const value = configValue(url);
    if (value === null) answerError("Internal", "no config " + url);
    else answerError("Internal", "config=" + value);
  } else if (name == "secret") {
    const secret = configValue("apiToken");
    if (secret === null) answerError("Internal", "no secret apiToken in config");
    else answerError("Internal", "secret=" + secret);
  } else if (name == "log") {
    log("warn", "hello from the plugin ✓");
    kernelLog("kernel log line");
    outputText(metadata("zone-a", "logged"));
  } else if (name == "log-flood") {
    for (let i = 0; i < 1000; i++) log("info", "line " + i.toString());
    outputText(metadata("zone-a", "flooded"));
  } else if (name == "slow") {
    // Busy for 150 ms; answers when it ran, so tests can see whether two calls overlapped.
    const started = ccm_now_ms();
    while (ccm_now_ms() < started + 150) {}
    outputText(metadata("zone-a", started.toString() + "-" + ccm_now_ms().toString()));
  } else {
    answerError("Invalid", "unknown fault " + name);
  }
  return 0;
}
