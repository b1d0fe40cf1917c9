// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/fault-plugins.ts), not by tsc.
// Names a Node field that does not exist ("providerId") among the ones its load balancers read.
import { outputText } from "./shared";

export function ccm_describe(): i32 {
  outputText(
    '{"ok":{"abi":"1.7","providerName":"misspelled","version":"1.0.0","capabilities":[],"hasClusterID":false,' +
      '"loadBalancerNodeFields":["name","providerId"]}}',
  );
  return 0;
}

export function ccm_initialize(): i32 {
  outputText('{"ok":{}}');
  return 0;
}
