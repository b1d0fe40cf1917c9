// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// Declares the loadBalancer capability but exports none of its methods.
import { outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"1.0","providerName":"partial","version":"0.1.0","capabilities":["loadBalancer"],"hasClusterID":false}}');
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"ok":{}}');
  return 0;
}
