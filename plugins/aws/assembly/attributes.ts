// Attributes of an NLB and of its target groups, reconciled as upstream does: read them, and modify only the keys
// whose value differs from the wanted one (a Modify call with nothing to change is not made).
import { PluginError, QueryRequest } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";

/** Sets the load balancer attributes of `want` that differ. */
export function syncLoadBalancerAttributes(aws: Aws, lbArn: string, want: Map<string, string>): PluginError | null {
  const q = aws.elbRequest("DescribeLoadBalancerAttributes").add("LoadBalancerArn", lbArn);
  return sync(aws, q, "DescribeLoadBalancerAttributesResult", aws.elbRequest("ModifyLoadBalancerAttributes").add("LoadBalancerArn", lbArn), want);
}

/** Sets the target group attributes of `want` that differ; nothing when `want` is empty. */
export function syncTargetGroupAttributes(aws: Aws, tgArn: string, want: Map<string, string>): PluginError | null {
  if (want.size == 0) return null;
  const q = aws.elbRequest("DescribeTargetGroupAttributes").add("TargetGroupArn", tgArn);
  return sync(aws, q, "DescribeTargetGroupAttributesResult", aws.elbRequest("ModifyTargetGroupAttributes").add("TargetGroupArn", tgArn), want);
}

function sync(aws: Aws, describe: QueryRequest, result: string, modify: QueryRequest, want: Map<string, string>): PluginError | null {
  const answer = aws.callElb(describe);
  if (!answer.ok) return answer.error;
  const have = new Map<string, string>();
  const items = answer.root!.path(result + "/Attributes/member");
  for (let i = 0; i < items.length; i++) have.set(items[i].childText("Key"), items[i].childText("Value"));
  const keys = want.keys();
  let n = 0;
  for (let i = 0; i < keys.length; i++) {
    if (have.has(keys[i]) && have.get(keys[i]) == want.get(keys[i])) continue;
    n++;
    const member = QueryRequest.member("Attributes", n);
    modify.add(member + ".Key", keys[i]).add(member + ".Value", want.get(keys[i]));
  }
  if (n == 0) return null;
  return aws.callElb(modify).error;
}
