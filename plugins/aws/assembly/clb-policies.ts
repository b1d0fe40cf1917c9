// A Classic ELB's policies as cloud-provider-aws keeps them: proxy protocol (a ProxyProtocolPolicyType policy named
// k8s-proxyprotocol-enabled, set on every listener's back-end port when the proxy-protocol annotation is "*", taken off
// the ports that should not have it), and the SSL negotiation policy (an SSLNegotiationPolicyType policy
// k8s-SSLNegotiationPolicy-<name> referring to the named ELB security policy, set on each SSL and HTTPS listener).
// Upstream leaves a negotiation policy on its listeners when the annotation goes away; so does this.
import { PluginError } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { callClb, Clb, ClbListener, clbRequest } from "./clb-api";

export const PROXY_PROTOCOL_POLICY = "k8s-proxyprotocol-enabled";

export function sslPolicyName(securityPolicy: string): string {
  return "k8s-SSLNegotiationPolicy-" + securityPolicy;
}

/** CreateLoadBalancerPolicy; one that already exists (DuplicatePolicyName) is the one wanted, its name being ours. */
function createPolicy(aws: Aws, lb: string, name: string, type: string, attribute: string, value: string): PluginError | null {
  const q = clbRequest("CreateLoadBalancerPolicy", lb).add("PolicyName", name).add("PolicyTypeName", type);
  q.add("PolicyAttributes.member.1.AttributeName", attribute).add("PolicyAttributes.member.1.AttributeValue", value);
  const answer = callClb(aws, q);
  if (answer.ok || answer.code == "DuplicatePolicyName") return null;
  return answer.error;
}

function hasProxyProtocol(lb: Clb, port: i32): bool {
  return lb.backends.has(port) && lb.backends.get(port).includes(PROXY_PROTOCOL_POLICY);
}

function setBackendPolicies(aws: Aws, lb: string, port: i32, policies: string[]): PluginError | null {
  const q = clbRequest("SetLoadBalancerPoliciesForBackendServer", lb).add("InstancePort", port.toString());
  // An empty list is sent as the bare member name, as the Query protocol writes one.
  if (policies.length == 0) q.add("PolicyNames", "");
  else q.addMembers("PolicyNames", policies);
  return callClb(aws, q).error;
}

/** Proxy protocol on exactly the back-end ports of `listeners` when `enabled`, on none otherwise. */
export function syncProxyProtocol(aws: Aws, lb: Clb, listeners: ClbListener[], enabled: bool): PluginError | null {
  const ports: i32[] = [];
  for (let i = 0; i < listeners.length; i++) if (!ports.includes(listeners[i].instancePort)) ports.push(listeners[i].instancePort);
  let created = false;
  for (let i = 0; i < ports.length; i++) {
    if (hasProxyProtocol(lb, ports[i]) == enabled) continue;
    if (enabled && !created) {
      const error = createPolicy(aws, lb.name, PROXY_PROTOCOL_POLICY, "ProxyProtocolPolicyType", "ProxyProtocol", "true");
      if (error !== null) return error;
      created = true;
    }
    const error = setBackendPolicies(aws, lb.name, ports[i], enabled ? [PROXY_PROTOCOL_POLICY] : []);
    if (error !== null) return error;
  }
  // Back-end ports no listener uses any more keep their policies in ELB: cleared, as upstream clears them.
  const stale = lb.backends.keys();
  for (let i = 0; i < stale.length; i++) {
    if (ports.includes(stale[i]) || lb.backends.get(stale[i]).length == 0) continue;
    const error = setBackendPolicies(aws, lb.name, stale[i], []);
    if (error !== null) return error;
  }
  return null;
}

/** The negotiation policy on each SSL and HTTPS listener of `listeners` that does not have it yet. */
export function syncSslPolicy(aws: Aws, lb: Clb, listeners: ClbListener[], securityPolicy: string): PluginError | null {
  if (securityPolicy == "") return null;
  const name = sslPolicyName(securityPolicy);
  let created = false;
  for (let i = 0; i < listeners.length; i++) {
    const l = listeners[i];
    const front = l.protocol.toUpperCase();
    if (front != "SSL" && front != "HTTPS") continue;
    if (l.policies.length == 1 && l.policies[0] == name) continue;
    if (!created) {
      const error = createPolicy(aws, lb.name, name, "SSLNegotiationPolicyType", "Reference-Security-Policy", securityPolicy);
      if (error !== null) return error;
      created = true;
    }
    const q = clbRequest("SetLoadBalancerPoliciesOfListener", lb.name).add("LoadBalancerPort", l.port.toString());
    const error = callClb(aws, q.addMembers("PolicyNames", [name])).error;
    if (error !== null) return error;
    l.policies = [name];
  }
  return null;
}
