// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// Refuses its cloud config in ccm_initialize.
import { outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"1.3","providerName":"picky","version":"0.1.0","capabilities":[],"hasClusterID":false}}');
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"error":{"code":"Invalid","message":"cloud config: region is required"}}');
  return 0;
}
