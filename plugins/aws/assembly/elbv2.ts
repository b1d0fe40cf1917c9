// The ELBv2 calls a network load balancer needs, each one Query request and its XML answer read into small classes.
import { PluginError, QueryRequest, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";

export class Nlb {
  arn: string = "";
  name: string = "";
  dnsName: string = "";
  scheme: string = "";
  /** The subnets of its availability zones (the NLB's health checks come from their addresses). */
  subnets: string[] = [];
  tags: Map<string, string> = new Map();
}

export class TargetGroup {
  arn: string = "";
  name: string = "";
  port: i32 = 0;
  healthProtocol: string = "";
  healthPort: string = "";
  healthPath: string = "";
  healthTimeout: i32 = 0;
  healthy: i32 = 0;
  unhealthy: i32 = 0;
}

export class Listener {
  arn: string = "";
  port: i32 = 0;
  protocol: string = "";
  sslPolicy: string = "";
  /** The default certificate's ARN of a TLS listener. */
  certificate: string = "";
  targetGroupArn: string = "";
}

export class Target {
  /** An instance ID, or an IP address in an `ip` group. */
  id: string = "";
  port: i32 = 0;
  /** An IP target's AvailabilityZone: "all" outside the VPC; "" to let ELBv2 find it. */
  zone: string = "";
}

/** A list read from ELBv2, or the error that stopped it. */
export class Listed<T> {
  items: T[] = [];
  error: PluginError | null = null;
}

function members(root: XmlElement, path: string): XmlElement[] {
  return root.path(path + "/member");
}

/** The NLB of that name with its tags; no items when there is none. */
export function describeLoadBalancer(aws: Aws, name: string): Listed<Nlb> {
  const out = new Listed<Nlb>();
  const answer = aws.callElb(aws.elbRequest("DescribeLoadBalancers").addMembers("Names", [name]));
  if (answer.code == "LoadBalancerNotFound") return out;
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const found = members(answer.root!, "DescribeLoadBalancersResult/LoadBalancers");
  for (let i = 0; i < found.length; i++) {
    if (found[i].childText("Type") != "network") continue;
    const lb = new Nlb();
    lb.arn = found[i].childText("LoadBalancerArn");
    lb.name = found[i].childText("LoadBalancerName");
    lb.dnsName = found[i].childText("DNSName");
    lb.scheme = found[i].childText("Scheme");
    const zones = members(found[i], "AvailabilityZones");
    for (let k = 0; k < zones.length; k++) if (zones[k].childText("SubnetId") != "") lb.subnets.push(zones[k].childText("SubnetId"));
    out.items.push(lb);
  }
  if (out.items.length > 0) out.error = readTags(aws, out.items[0].arn, out.items[0].tags);
  return out;
}

/** The tags of one resource (load balancer or target group) into `into`. */
export function readTags(aws: Aws, arn: string, into: Map<string, string>): PluginError | null {
  const answer = aws.callElb(aws.elbRequest("DescribeTags").addMembers("ResourceArns", [arn]));
  if (!answer.ok) return answer.error;
  const tags = answer.root!.path("DescribeTagsResult/TagDescriptions/member/Tags/member");
  for (let i = 0; i < tags.length; i++) into.set(tags[i].childText("Key"), tags[i].childText("Value"));
  return null;
}

export function describeTargetGroups(aws: Aws, lbArn: string): Listed<TargetGroup> {
  const out = new Listed<TargetGroup>();
  const answer = aws.callElb(aws.elbRequest("DescribeTargetGroups").add("LoadBalancerArn", lbArn));
  if (answer.code == "TargetGroupNotFound" || answer.code == "LoadBalancerNotFound") return out;
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const found = members(answer.root!, "DescribeTargetGroupsResult/TargetGroups");
  for (let i = 0; i < found.length; i++) out.items.push(readTargetGroup(found[i]));
  return out;
}

export function readTargetGroup(el: XmlElement): TargetGroup {
  const tg = new TargetGroup();
  tg.arn = el.childText("TargetGroupArn");
  tg.name = el.childText("TargetGroupName");
  tg.port = I32.parseInt(el.childText("Port"));
  tg.healthProtocol = el.childText("HealthCheckProtocol");
  tg.healthPort = el.childText("HealthCheckPort");
  tg.healthPath = el.childText("HealthCheckPath");
  tg.healthTimeout = intOf(el.childText("HealthCheckTimeoutSeconds"));
  tg.healthy = intOf(el.childText("HealthyThresholdCount"));
  tg.unhealthy = intOf(el.childText("UnhealthyThresholdCount"));
  return tg;
}

function intOf(text: string): i32 {
  return text == "" ? 0 : I32.parseInt(text);
}

export function describeListeners(aws: Aws, lbArn: string): Listed<Listener> {
  const out = new Listed<Listener>();
  const answer = aws.callElb(aws.elbRequest("DescribeListeners").add("LoadBalancerArn", lbArn));
  if (answer.code == "ListenerNotFound" || answer.code == "LoadBalancerNotFound") return out;
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const found = members(answer.root!, "DescribeListenersResult/Listeners");
  for (let i = 0; i < found.length; i++) {
    const l = new Listener();
    l.arn = found[i].childText("ListenerArn");
    l.port = I32.parseInt(found[i].childText("Port"));
    l.protocol = found[i].childText("Protocol");
    l.sslPolicy = found[i].childText("SslPolicy");
    l.certificate = found[i].pathText("Certificates/member/CertificateArn");
    l.targetGroupArn = found[i].pathText("DefaultActions/member/TargetGroupArn");
    out.items.push(l);
  }
  return out;
}

export function describeTargets(aws: Aws, tgArn: string): Listed<Target> {
  const out = new Listed<Target>();
  const answer = aws.callElb(aws.elbRequest("DescribeTargetHealth").add("TargetGroupArn", tgArn));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const found = members(answer.root!, "DescribeTargetHealthResult/TargetHealthDescriptions");
  for (let i = 0; i < found.length; i++) {
    const t = new Target();
    t.id = found[i].pathText("Target/Id");
    t.port = I32.parseInt(found[i].pathText("Target/Port"));
    t.zone = found[i].pathText("Target/AvailabilityZone");
    out.items.push(t);
  }
  return out;
}

/** Tags.member.N.Key / .Value, in the map's order. */
export function addTags(q: QueryRequest, tags: Map<string, string>): QueryRequest {
  const keys = tags.keys();
  for (let i = 0; i < keys.length; i++) {
    const member = QueryRequest.member("Tags", i + 1);
    q.add(member + ".Key", keys[i]).add(member + ".Value", tags.get(keys[i]));
  }
  return q;
}

/** Targets.member.N.Id / .Port (/ .AvailabilityZone), each target on its own port. */
export function changeTargets(aws: Aws, action: string, tgArn: string, targets: Target[]): PluginError | null {
  if (targets.length == 0) return null;
  const q = aws.elbRequest(action).add("TargetGroupArn", tgArn);
  for (let i = 0; i < targets.length; i++) {
    const member = QueryRequest.member("Targets", i + 1);
    q.add(member + ".Id", targets[i].id).add(member + ".Port", targets[i].port.toString());
    if (targets[i].zone != "") q.add(member + ".AvailabilityZone", targets[i].zone);
  }
  return aws.callElb(q).error;
}

/** A call whose answer only matters as success or failure; `ignore` is an error code that counts as success. */
export function simpleCall(aws: Aws, q: QueryRequest, ignore: string = ""): PluginError | null {
  const answer = aws.callElb(q);
  if (ignore != "" && answer.code == ignore) return null;
  return answer.error;
}

/** The ARN in a Create* answer at `path` (say "CreateTargetGroupResult/TargetGroups/member/TargetGroupArn"). */
export class Created {
  arn: string = "";
  dnsName: string = "";
  error: PluginError | null = null;
}

export function create(aws: Aws, q: QueryRequest, arnPath: string): Created {
  const out = new Created();
  const answer = aws.callElb(q);
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  out.arn = answer.root!.pathText(arnPath);
  out.dnsName = answer.root!.pathText("CreateLoadBalancerResult/LoadBalancers/member/DNSName");
  return out;
}
