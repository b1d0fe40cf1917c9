// The listener of one Service port: forwards the port to its target group, TCP/UDP as the port is, or TLS with the
// Service's certificate and negotiation policy (nlb-options.ts). An existing listener on the port is modified in
// place when its target group, protocol, certificate or policy differ.
import { PluginError, QueryRequest, ServicePort } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { create, Listener, simpleCall } from "./elbv2";
import { NlbOptions } from "./nlb-options";

/** Creates or fixes the port's listener; its ARN is added to `keep`. */
export function syncListener(
  aws: Aws,
  lbArn: string,
  listeners: Listener[],
  port: ServicePort,
  nlb: NlbOptions,
  tgArn: string,
  keep: string[],
): PluginError | null {
  const protocol = nlb.frontendProtocol(port);
  for (let i = 0; i < listeners.length; i++) {
    const l = listeners[i];
    if (l.port != port.port) continue;
    keep.push(l.arn);
    if (l.targetGroupArn == tgArn && !tlsDiffers(l, protocol, nlb)) return null;
    const q = aws.elbRequest("ModifyListener").add("ListenerArn", l.arn).add("Port", port.port.toString());
    // The protocol only when it changes: moto refuses TLS in ModifyListener, where AWS takes it.
    if (l.protocol != protocol) q.add("Protocol", protocol);
    return simpleCall(aws, tls(forward(q, tgArn), protocol, nlb));
  }
  const q = aws.elbRequest("CreateListener").add("LoadBalancerArn", lbArn);
  q.add("Protocol", protocol).add("Port", port.port.toString());
  const made = create(aws, tls(forward(q, tgArn), protocol, nlb), "CreateListenerResult/Listeners/member/ListenerArn");
  if (made.error !== null) return made.error;
  keep.push(made.arn);
  return null;
}

/** A policy is compared only when the Service names one: without, ELBv2's default stands, as upstream sends none. */
function tlsDiffers(l: Listener, protocol: string, nlb: NlbOptions): bool {
  if (l.protocol != protocol) return true;
  if (protocol != "TLS") return false;
  return l.certificate != nlb.certificate || (nlb.sslPolicy != "" && l.sslPolicy != nlb.sslPolicy);
}

function tls(q: QueryRequest, protocol: string, nlb: NlbOptions): QueryRequest {
  if (protocol != "TLS") return q;
  q.add(QueryRequest.member("Certificates", 1) + ".CertificateArn", nlb.certificate);
  if (nlb.sslPolicy != "") q.add("SslPolicy", nlb.sslPolicy);
  return q;
}

function forward(q: QueryRequest, tgArn: string): QueryRequest {
  const action = QueryRequest.member("DefaultActions", 1);
  return q.add(action + ".Type", "forward").add(action + ".TargetGroupArn", tgArn);
}
