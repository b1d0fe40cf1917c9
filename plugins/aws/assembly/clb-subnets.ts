// A Classic ELB's subnets kept as wanted, as cloud-provider-aws keeps them on every ensure: the subnets no longer
// wanted detached first (an ELB holds one subnet per zone, so a subnet replacing another in its zone can only be
// attached once the old one is gone), then the new ones attached.
import { PluginError } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { callClb, Clb, clbRequest } from "./clb-api";

export function syncSubnets(aws: Aws, lb: Clb, want: string[]): PluginError | null {
  const removals: string[] = [];
  const additions: string[] = [];
  for (let i = 0; i < lb.subnets.length; i++) if (!want.includes(lb.subnets[i])) removals.push(lb.subnets[i]);
  for (let i = 0; i < want.length; i++) if (!lb.subnets.includes(want[i])) additions.push(want[i]);
  if (removals.length > 0) {
    const error = callClb(aws, clbRequest("DetachLoadBalancerFromSubnets", lb.name).addMembers("Subnets", removals)).error;
    if (error !== null) return error;
  }
  if (additions.length > 0) {
    const error = callClb(aws, clbRequest("AttachLoadBalancerToSubnets", lb.name).addMembers("Subnets", additions)).error;
    if (error !== null) return error;
  }
  lb.subnets = want;
  return null;
}
