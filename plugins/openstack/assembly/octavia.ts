// Octavia's objects as this plugin reads them, the lookups OCCM makes (a load balancer by name or ID, its listeners,
// pools, members and health monitor), the wait for ACTIVE between changes, and the API version that tells which
// features OCCM uses (tags from v2.5, VIP ACLs v2.12, flavors v2.6, timeouts v2.1, availability zones v2.14).
import {
  encodeComponent,
  fields,
  HttpClient,
  internal,
  JsonKind,
  JsonValue,
  Log,
  PluginError,
  retryAfter,
} from "@wasm-ccm/plugin-sdk";
import { Answer, Api, get } from "./api";
import { elapsedSeconds, pause, remainingMs } from "./budget";

export const ACTIVE = "ACTIVE";
export const ERROR = "ERROR";

export class LoadBalancer {
  id: string = "";
  name: string = "";
  provisioningStatus: string = "";
  vipAddress: string = "";
  vipPortID: string = "";
  vipSubnetID: string = "";
  tags: string[] = [];
}

export class Listener {
  id: string = "";
  protocol: string = "";
  port: i32 = 0;
  tags: string[] = [];
  connLimit: i32 = -1;
  xForwardedFor: bool = false;
  timeoutClientData: i32 = 0;
  timeoutMemberConnect: i32 = 0;
  timeoutMemberData: i32 = 0;
  timeoutTCPInspect: i32 = 0;
  allowedCIDRs: string[] = [];
  insertHeaders: JsonValue = JsonValue.newObject();
}

export class Pool {
  id: string = "";
  protocol: string = "";
  lbMethod: string = "";
  listenerIDs: string[] = [];
  monitorID: string = "";
}

export class Monitor {
  id: string = "";
  name: string = "";
  type: string = "";
  delay: i32 = 0;
  timeout: i32 = 0;
  maxRetries: i32 = 0;
  maxRetriesDown: i32 = 0;
}

function strings(list: JsonValue): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) out.push(list.at(i).asString());
  return out;
}

export function parseLoadBalancer(doc: JsonValue): LoadBalancer {
  const lb = new LoadBalancer();
  lb.id = doc.get("id").asString();
  lb.name = doc.get("name").asString();
  lb.provisioningStatus = doc.get("provisioning_status").asString();
  lb.vipAddress = doc.get("vip_address").asString();
  lb.vipPortID = doc.get("vip_port_id").asString();
  lb.vipSubnetID = doc.get("vip_subnet_id").asString();
  lb.tags = strings(doc.get("tags"));
  return lb;
}

function parseListener(doc: JsonValue): Listener {
  const l = new Listener();
  l.id = doc.get("id").asString();
  l.protocol = doc.get("protocol").asString();
  l.port = doc.get("protocol_port").asI32();
  l.tags = strings(doc.get("tags"));
  l.connLimit = doc.get("connection_limit").asI32(-1);
  const headers = doc.get("insert_headers");
  if (headers.kind == JsonKind.Object) l.insertHeaders = headers;
  l.xForwardedFor = headers.get("X-Forwarded-For").asString() == "true";
  l.timeoutClientData = doc.get("timeout_client_data").asI32();
  l.timeoutMemberConnect = doc.get("timeout_member_connect").asI32();
  l.timeoutMemberData = doc.get("timeout_member_data").asI32();
  l.timeoutTCPInspect = doc.get("timeout_tcp_inspect").asI32();
  l.allowedCIDRs = strings(doc.get("allowed_cidrs"));
  return l;
}

function parsePool(doc: JsonValue): Pool {
  const p = new Pool();
  p.id = doc.get("id").asString();
  p.protocol = doc.get("protocol").asString();
  p.lbMethod = doc.get("lb_algorithm").asString();
  p.monitorID = doc.get("healthmonitor_id").asString();
  const listeners = doc.get("listeners");
  for (let i = 0; i < listeners.length; i++) p.listenerIDs.push(listeners.at(i).get("id").asString());
  return p;
}

export class Found {
  lb: LoadBalancer | null = null;
  error: PluginError | null = null;
}

/** The load balancer named `name` that is not being deleted; more than one is an error (getLoadbalancerByName). */
export function findByName(api: Api, name: string): Found {
  const out = new Found();
  const answer = get(api.lb, "/lbaas/loadbalancers?name=" + encodeComponent(name));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const list = answer.doc!.get("loadbalancers");
  for (let i = 0; i < list.length; i++) {
    const lb = parseLoadBalancer(list.at(i));
    if (lb.provisioningStatus == "DELETED" || lb.provisioningStatus == "PENDING_DELETE") continue;
    if (out.lb !== null) {
      out.error = internal("more than one load balancer is named " + name);
      return out;
    }
    out.lb = lb;
  }
  return out;
}

export function findByID(api: Api, id: string): Found {
  const out = new Found();
  const answer = get(api.lb, "/lbaas/loadbalancers/" + encodeComponent(id));
  if (answer.notFound) return out;
  if (!answer.ok) out.error = answer.error;
  else out.lb = parseLoadBalancer(answer.doc!.get("loadbalancer"));
  return out;
}

/**
 * Polls the load balancer until it is ACTIVE (OCCM's WaitActiveAndGetLoadBalancer): ERROR is an error; the call's
 * time budget running out is Retry, and the next call continues.
 */
export function waitActive(api: Api, id: string): Found {
  let interval: i64 = 200;
  while (true) {
    const found = findByID(api, id);
    if (found.error !== null) return found;
    const lb = found.lb;
    if (lb === null) {
      found.error = internal("load balancer " + id + " disappeared while waiting for it to become ACTIVE");
      return found;
    }
    if (lb.provisioningStatus == ACTIVE) return found;
    if (lb.provisioningStatus == ERROR) {
      found.error = internal("load balancer " + id + " has gone into ERROR state, please check Octavia for details");
      return found;
    }
    if (remainingMs() <= 0) {
      const state = lb.provisioningStatus;
      Log.info("load balancer not ACTIVE yet; the next sync goes on", fields().set("id", id).set("status", state));
      found.error = retryAfter(2, "load balancer " + id + " is " + state + " after " + elapsedSeconds().toString() + " s");
      return found;
    }
    pause(interval);
    interval = min(interval * 2, <i64>1000);
  }
}

/** Waits until the load balancer is gone (404), as OCCM's DeleteLoadbalancer does; Retry when the budget runs out. */
export function waitDeleted(api: Api, id: string): PluginError | null {
  let interval: i64 = 200;
  while (true) {
    const found = findByID(api, id);
    if (found.error !== null) return found.error;
    if (found.lb === null) return null;
    if (remainingMs() <= 0) return retryAfter(2, "load balancer " + id + " is still being deleted");
    pause(interval);
    interval = min(interval * 2, <i64>1000);
  }
}

export class Listeners {
  items: Listener[] = [];
  error: PluginError | null = null;
}

export function listListeners(api: Api, lbID: string): Listeners {
  const out = new Listeners();
  const answer = get(api.lb, "/lbaas/listeners?loadbalancer_id=" + encodeComponent(lbID));
  if (!answer.ok) out.error = answer.error;
  else for (let i = 0; i < answer.doc!.get("listeners").length; i++) out.items.push(parseListener(answer.doc!.get("listeners").at(i)));
  return out;
}

export class Pools {
  items: Pool[] = [];
  error: PluginError | null = null;

  /** The pool of a listener (a listener has at most one); null when it has none. */
  ofListener(listenerID: string): Pool | null {
    for (let i = 0; i < this.items.length; i++) if (this.items[i].listenerIDs.includes(listenerID)) return this.items[i];
    return null;
  }
}

export function listPools(api: Api, lbID: string): Pools {
  const out = new Pools();
  const answer = get(api.lb, "/lbaas/pools?loadbalancer_id=" + encodeComponent(lbID));
  if (!answer.ok) out.error = answer.error;
  else for (let i = 0; i < answer.doc!.get("pools").length; i++) out.items.push(parsePool(answer.doc!.get("pools").at(i)));
  return out;
}

export class Members {
  /** OCCM's member keys: "<name>-<address>-<port>-<monitor port>". */
  keys: string[] = [];
  error: PluginError | null = null;
}

export function listMemberKeys(api: Api, poolID: string): Members {
  const out = new Members();
  const answer = get(api.lb, "/lbaas/pools/" + encodeComponent(poolID) + "/members");
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const list = answer.doc!.get("members");
  for (let i = 0; i < list.length; i++) {
    const m = list.at(i);
    const monitorPort = m.get("monitor_port").isNull ? 0 : m.get("monitor_port").asI32();
    out.keys.push(memberKey(m.get("name").asString(), m.get("address").asString(), m.get("protocol_port").asI32(), monitorPort));
  }
  return out;
}

export function memberKey(name: string, address: string, port: i32, monitorPort: i32): string {
  return name + "-" + address + "-" + port.toString() + "-" + monitorPort.toString();
}

export class MonitorResult {
  monitor: Monitor | null = null;
  error: PluginError | null = null;
}

export function getMonitor(api: Api, id: string): MonitorResult {
  const out = new MonitorResult();
  const answer: Answer = get(api.lb, "/lbaas/healthmonitors/" + encodeComponent(id));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const doc = answer.doc!.get("healthmonitor");
  const m = new Monitor();
  m.id = doc.get("id").asString();
  m.name = doc.get("name").asString();
  m.type = doc.get("type").asString();
  m.delay = doc.get("delay").asI32();
  m.timeout = doc.get("timeout").asI32();
  m.maxRetries = doc.get("max_retries").asI32();
  m.maxRetriesDown = doc.get("max_retries_down").asI32();
  out.monitor = m;
  return out;
}

export class Features {
  known: bool = false;
  minor: i32 = 0;
  ovn: bool = false;

  get tags(): bool {
    return this.minor >= 5;
  }
  get vipACL(): bool {
    return !this.ovn && this.minor >= 12;
  }
  get flavors(): bool {
    return !this.ovn && this.minor >= 6;
  }
  get timeouts(): bool {
    return !this.ovn && this.minor >= 1;
  }
  get availabilityZones(): bool {
    return !this.ovn && this.minor >= 14;
  }
  get httpMonitorsOnUDP(): bool {
    return !this.ovn && this.minor >= 16;
  }
}

// Asked once per instance, as OCCM caches it for the process.
const features = new Features();

/** The current Octavia API version (the last of GET / on its root) as the features it has. */
export function octaviaFeatures(root: HttpClient, provider: string): Features {
  features.ovn = provider == "ovn";
  if (features.known) return features;
  const answer = get(root, "/");
  const versions = answer.ok ? answer.doc!.get("versions") : JsonValue.ofNull();
  if (versions.length == 0) {
    // OCCM assumes 0.0 (no optional feature) when it cannot tell, and asks again next time.
    Log.warn("cannot read Octavia's API version; using no optional feature", null);
    return features;
  }
  const id = versions.at(versions.length - 1).get("id").asString();
  const dot = id.indexOf(".");
  features.minor = dot < 0 ? 0 : I32.parseInt(id.substring(dot + 1));
  features.known = true;
  return features;
}
