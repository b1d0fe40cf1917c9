// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// Declares provider ABI 2.0, which the host does not speak.
import { outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText('{"ok":{"abi":"2.0","providerName":"future","version":"9.0.0","capabilities":[],"hasClusterID":false}}');
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"ok":{}}');
  return 0;
}
