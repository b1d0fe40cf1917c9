// The Classic ELB calls (Elastic Load Balancing's 2012-06-01 Query API, on the same host as ELBv2) a Classic load
// balancer needs, each one request and its XML answer read into small classes. A Classic ELB is addressed by name.
import { PluginError, QueryRequest, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws, AwsAnswer } from "./api";

export const ELB_VERSION = "2012-06-01";

export class ClbListener {
  protocol: string = "TCP";
  port: i32 = 0;
  instanceProtocol: string = "TCP";
  instancePort: i32 = 0;
  sslCertificateId: string = "";
  /** The listener's policies (an SSL negotiation policy), as DescribeLoadBalancers answers them. */
  policies: string[] = [];

  /** As upstream compares listeners: protocols case-insensitively, ports and certificate exactly. */
  sameAs(other: ClbListener): bool {
    return (
      this.protocol.toUpperCase() == other.protocol.toUpperCase() &&
      this.instanceProtocol.toUpperCase() == other.instanceProtocol.toUpperCase() &&
      this.port == other.port &&
      this.instancePort == other.instancePort &&
      this.sslCertificateId == other.sslCertificateId
    );
  }
}

export class ClbHealthCheck {
  target: string = "";
  interval: i32 = 0;
  timeout: i32 = 0;
  healthy: i32 = 0;
  unhealthy: i32 = 0;

  sameAs(other: ClbHealthCheck): bool {
    return (
      this.target == other.target &&
      this.interval == other.interval &&
      this.timeout == other.timeout &&
      this.healthy == other.healthy &&
      this.unhealthy == other.unhealthy
    );
  }
}

export class Clb {
  name: string = "";
  dnsName: string = "";
  scheme: string = "";
  securityGroups: string[] = [];
  subnets: string[] = [];
  instances: string[] = [];
  listeners: ClbListener[] = [];
  /** Back-end (instance) port -> its policies, for the ports that have any (BackendServerDescriptions). */
  backends: Map<i32, string[]> = new Map();
  /** null when the answer has none (moto before a ConfigureHealthCheck; AWS always has one). */
  healthCheck: ClbHealthCheck | null = null;
  tags: Map<string, string> = new Map();
}

export class ClbFound {
  lb: Clb | null = null;
  error: PluginError | null = null;
}

/** A request about one Classic ELB, which the API addresses by name. */
export function clbRequest(action: string, name: string): QueryRequest {
  return new QueryRequest(action, ELB_VERSION).add("LoadBalancerName", name);
}

export function callClb(aws: Aws, q: QueryRequest): AwsAnswer {
  return aws.callElb(q);
}

function texts(el: XmlElement, path: string): string[] {
  const found = el.path(path + "/member");
  const out: string[] = [];
  for (let i = 0; i < found.length; i++) out.push(found[i].text.trimStart().trimEnd());
  return out;
}

/** The Classic ELB of that name with its tags; `lb` null when there is none. */
export function describeClb(aws: Aws, name: string): ClbFound {
  const out = new ClbFound();
  const q = new QueryRequest("DescribeLoadBalancers", ELB_VERSION).addMembers("LoadBalancerNames", [name]);
  const answer = callClb(aws, q);
  if (answer.code == "LoadBalancerNotFound") return out;
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const el = answer.root!.first("DescribeLoadBalancersResult/LoadBalancerDescriptions/member");
  if (el === null) return out;
  const lb = new Clb();
  lb.name = el.childText("LoadBalancerName");
  lb.dnsName = el.childText("DNSName");
  lb.scheme = el.childText("Scheme");
  lb.securityGroups = texts(el, "SecurityGroups");
  lb.subnets = texts(el, "Subnets");
  const instances = el.path("Instances/member");
  for (let i = 0; i < instances.length; i++) lb.instances.push(instances[i].childText("InstanceId"));
  const listeners = el.path("ListenerDescriptions/member");
  for (let i = 0; i < listeners.length; i++) {
    const listener = listeners[i].child("Listener");
    if (listener === null) continue;
    const l = readListener(listener);
    l.policies = texts(listeners[i], "PolicyNames");
    lb.listeners.push(l);
  }
  const backends = el.path("BackendServerDescriptions/member");
  for (let i = 0; i < backends.length; i++) {
    lb.backends.set(I32.parseInt(backends[i].childText("InstancePort")), texts(backends[i], "PolicyNames"));
  }
  const hc = el.child("HealthCheck");
  if (hc !== null && hc.childText("Target") != "") {
    const h = new ClbHealthCheck();
    h.target = hc.childText("Target");
    h.interval = I32.parseInt(hc.childText("Interval"));
    h.timeout = I32.parseInt(hc.childText("Timeout"));
    h.healthy = I32.parseInt(hc.childText("HealthyThreshold"));
    h.unhealthy = I32.parseInt(hc.childText("UnhealthyThreshold"));
    lb.healthCheck = h;
  }
  out.error = readClbTags(aws, name, lb.tags);
  out.lb = lb;
  return out;
}

function readListener(el: XmlElement): ClbListener {
  const l = new ClbListener();
  l.protocol = el.childText("Protocol");
  l.port = I32.parseInt(el.childText("LoadBalancerPort"));
  l.instanceProtocol = el.childText("InstanceProtocol");
  l.instancePort = I32.parseInt(el.childText("InstancePort"));
  l.sslCertificateId = el.childText("SSLCertificateId");
  return l;
}

function readClbTags(aws: Aws, name: string, into: Map<string, string>): PluginError | null {
  const q = new QueryRequest("DescribeTags", ELB_VERSION).addMembers("LoadBalancerNames", [name]);
  const answer = callClb(aws, q);
  if (!answer.ok) return answer.error;
  const tags = answer.root!.path("DescribeTagsResult/TagDescriptions/member/Tags/member");
  for (let i = 0; i < tags.length; i++) into.set(tags[i].childText("Key"), tags[i].childText("Value"));
  return null;
}

/** Listeners.member.N.Protocol / LoadBalancerPort / InstanceProtocol / InstancePort (/ SSLCertificateId). */
export function addListeners(q: QueryRequest, listeners: ClbListener[]): QueryRequest {
  for (let i = 0; i < listeners.length; i++) {
    const m = QueryRequest.member("Listeners", i + 1);
    const l = listeners[i];
    q.add(m + ".Protocol", l.protocol).add(m + ".LoadBalancerPort", l.port.toString());
    q.add(m + ".InstanceProtocol", l.instanceProtocol).add(m + ".InstancePort", l.instancePort.toString());
    if (l.sslCertificateId != "") q.add(m + ".SSLCertificateId", l.sslCertificateId);
  }
  return q;
}

/** Tags.member.N.Key / .Value. */
export function addClbTags(q: QueryRequest, tags: Map<string, string>): QueryRequest {
  const keys = tags.keys();
  for (let i = 0; i < keys.length; i++) {
    const m = QueryRequest.member("Tags", i + 1);
    q.add(m + ".Key", keys[i]).add(m + ".Value", tags.get(keys[i]));
  }
  return q;
}

/** Instances.member.N.InstanceId for (De)RegisterInstances...; nothing to do for none. */
export function changeInstances(aws: Aws, action: string, name: string, ids: string[]): PluginError | null {
  if (ids.length == 0) return null;
  const q = clbRequest(action, name);
  for (let i = 0; i < ids.length; i++) q.add(QueryRequest.member("Instances", i + 1) + ".InstanceId", ids[i]);
  return callClb(aws, q).error;
}

export function configureHealthCheck(aws: Aws, name: string, h: ClbHealthCheck): PluginError | null {
  const q = clbRequest("ConfigureHealthCheck", name);
  q.add("HealthCheck.Target", h.target).add("HealthCheck.Interval", h.interval.toString());
  q.add("HealthCheck.Timeout", h.timeout.toString()).add("HealthCheck.HealthyThreshold", h.healthy.toString());
  q.add("HealthCheck.UnhealthyThreshold", h.unhealthy.toString());
  return callClb(aws, q).error;
}

/** The attributes upstream sets on every Classic ELB (ModifyLoadBalancerAttributes' LoadBalancerAttributes). */
export class ClbAttributes {
  accessLogEnabled: bool = false;
  accessLogBucket: string = "";
  accessLogPrefix: string = "";
  /** 0: not given (AWS keeps its 60). */
  accessLogInterval: i32 = 0;
  drainingEnabled: bool = false;
  /** 0: not given (AWS keeps the current timeout, 300 by default). */
  drainingTimeout: i32 = 0;
  idleTimeout: i32 = 60;
  crossZone: bool = false;

  /** Whether `actual` already has every value this one asks for (values not given are not compared). */
  satisfiedBy(actual: ClbAttributes): bool {
    if (actual.accessLogEnabled != this.accessLogEnabled || actual.drainingEnabled != this.drainingEnabled) return false;
    if (actual.idleTimeout != this.idleTimeout || actual.crossZone != this.crossZone) return false;
    if (this.drainingTimeout != 0 && actual.drainingTimeout != this.drainingTimeout) return false;
    if (!this.accessLogEnabled) return true;
    if (this.accessLogInterval != 0 && actual.accessLogInterval != this.accessLogInterval) return false;
    return actual.accessLogBucket == this.accessLogBucket && actual.accessLogPrefix == this.accessLogPrefix;
  }
}

export class AttributesRead {
  attributes: ClbAttributes = new ClbAttributes();
  error: PluginError | null = null;
}

export function describeAttributes(aws: Aws, name: string): AttributesRead {
  const out = new AttributesRead();
  const answer = callClb(aws, clbRequest("DescribeLoadBalancerAttributes", name));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const el = answer.root!.first("DescribeLoadBalancerAttributesResult/LoadBalancerAttributes");
  if (el === null) return out;
  const a = out.attributes;
  a.accessLogEnabled = el.pathText("AccessLog/Enabled") == "true";
  a.accessLogBucket = el.pathText("AccessLog/S3BucketName");
  a.accessLogPrefix = el.pathText("AccessLog/S3BucketPrefix");
  a.accessLogInterval = intOr(el.pathText("AccessLog/EmitInterval"), 0);
  a.drainingEnabled = el.pathText("ConnectionDraining/Enabled") == "true";
  a.drainingTimeout = intOr(el.pathText("ConnectionDraining/Timeout"), 0);
  a.idleTimeout = intOr(el.pathText("ConnectionSettings/IdleTimeout"), 60);
  a.crossZone = el.pathText("CrossZoneLoadBalancing/Enabled") == "true";
  return out;
}

export function modifyAttributes(aws: Aws, name: string, a: ClbAttributes): PluginError | null {
  const p = "LoadBalancerAttributes.";
  const q = clbRequest("ModifyLoadBalancerAttributes", name);
  q.add(p + "AccessLog.Enabled", a.accessLogEnabled ? "true" : "false");
  if (a.accessLogBucket != "") q.add(p + "AccessLog.S3BucketName", a.accessLogBucket);
  if (a.accessLogPrefix != "") q.add(p + "AccessLog.S3BucketPrefix", a.accessLogPrefix);
  if (a.accessLogInterval != 0) q.add(p + "AccessLog.EmitInterval", a.accessLogInterval.toString());
  q.add(p + "ConnectionDraining.Enabled", a.drainingEnabled ? "true" : "false");
  if (a.drainingTimeout != 0) q.add(p + "ConnectionDraining.Timeout", a.drainingTimeout.toString());
  q.add(p + "ConnectionSettings.IdleTimeout", a.idleTimeout.toString());
  q.add(p + "CrossZoneLoadBalancing.Enabled", a.crossZone ? "true" : "false");
  return callClb(aws, q).error;
}

function intOr(text: string, fallback: i32): i32 {
  const t = text.trimStart().trimEnd();
  return t == "" ? fallback : I32.parseInt(t);
}
