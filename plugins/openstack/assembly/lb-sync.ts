// An existing load balancer brought to what the Service asks, step by step as OCCM does it (ensureOctaviaListener,
// ensureOctaviaPool, ensureOctaviaHealthMonitor, deleteOctaviaListeners), each change followed by the wait for
// ACTIVE: per Service port a listener, its pool with the nodes as members (one batch update when they differ) and
// the health monitor; listeners this Service made for ports it no longer has are removed with their pools.
import { encodeComponent, internal, JsonValue, PluginError, ServicePort } from "@wasm-ccm/plugin-sdk";
import { Answer, Api, del, post, put, putJson } from "./api";
import {
  listenerBody,
  listenerProtocol,
  memberKeys,
  membersBody,
  membersOf,
  monitorBody,
  monitorType,
  Plan,
  poolBody,
  poolProtocol,
} from "./octavia-build";
import { monitorName } from "./names";
import {
  getMonitor,
  Listener,
  listListeners,
  listMemberKeys,
  listPools,
  LoadBalancer,
  Pool,
  Pools,
  waitActive,
} from "./octavia";

/** A change, then the wait for ACTIVE that Octavia needs before the next one. */
function changed(api: Api, lbID: string, answer: Answer): PluginError | null {
  if (!answer.ok) return answer.error;
  return waitActive(api, lbID).error;
}

class Created {
  id: string = "";
  error: PluginError | null = null;
}

function create(api: Api, lbID: string, path: string, kind: string, body: JsonValue): Created {
  const out = new Created();
  const answer = post(api.lb, path, JsonValue.newObject().set(kind, body));
  out.error = changed(api, lbID, answer);
  if (out.error === null) out.id = answer.doc!.get(kind).get("id").asString();
  return out;
}

/** A listener this Service made: tagged with its load balancer's name, or untagged (OCCM before tags). */
function ours(listener: Listener, lbName: string): bool {
  return listener.tags.length == 0 || listener.tags.includes(lbName);
}

function listenerFor(listeners: Listener[], protocol: string, port: i32): Listener | null {
  for (let i = 0; i < listeners.length; i++) {
    if (listeners[i].protocol == protocol && listeners[i].port == port) return listeners[i];
  }
  return null;
}

export function syncListeners(api: Api, plan: Plan, lb: LoadBalancer): PluginError | null {
  const listed = listListeners(api, lb.id);
  if (listed.error !== null) return listed.error;
  const pools = listPools(api, lb.id);
  if (pools.error !== null) return pools.error;
  const ports = plan.service.ports;
  for (let i = 0; i < ports.length; i++) {
    const existing = listenerFor(listed.items, listenerProtocol(plan, ports[i]), ports[i].port);
    if (existing !== null && !ours(existing, plan.lbName)) {
      return internal("the listener port " + ports[i].port.toString() + " already exists");
    }
  }
  const keep: string[] = [];
  for (let i = 0; i < ports.length; i++) {
    const proto = listenerProtocol(plan, ports[i]);
    const listenerID = ensureListener(api, plan, lb.id, listenerFor(listed.items, proto, ports[i].port), ports[i], i);
    if (listenerID.error !== null) return listenerID.error;
    const error = syncPort(api, plan, lb.id, listenerID.id, proto, ports[i], i, pools);
    if (error !== null) return error;
    keep.push(listenerID.id);
  }
  for (let i = 0; i < listed.items.length; i++) {
    const l = listed.items[i];
    if (keep.includes(l.id) || !ours(l, plan.lbName)) continue;
    const error = deleteListener(api, lb.id, l.id, pools.ofListener(l.id));
    if (error !== null) return error;
  }
  return null;
}

/** The pool, its members and its monitor for one port whose listener exists (updateLoadBalancer does only this). */
export function syncPort(
  api: Api,
  plan: Plan,
  lbID: string,
  listenerID: string,
  listenerProto: string,
  port: ServicePort,
  index: i32,
  pools: Pools,
): PluginError | null {
  const pool = ensurePool(api, plan, lbID, listenerID, listenerProto, port, index, pools.ofListener(listenerID));
  if (pool.error !== null) return pool.error;
  return ensureMonitor(api, plan, lbID, pool.id, pool.monitorID, port, index);
}

function deleteListener(api: Api, lbID: string, listenerID: string, pool: Pool | null): PluginError | null {
  if (pool !== null) {
    // Deleting a pool deletes its members and health monitor.
    const error = changedOr404(api, lbID, del(api.lb, "/lbaas/pools/" + encodeComponent(pool.id)));
    if (error !== null) return error;
  }
  return changedOr404(api, lbID, del(api.lb, "/lbaas/listeners/" + encodeComponent(listenerID)));
}

function changedOr404(api: Api, lbID: string, answer: Answer): PluginError | null {
  return answer.notFound ? null : changed(api, lbID, answer);
}

function ensureListener(api: Api, plan: Plan, lbID: string, existing: Listener | null, port: ServicePort, index: i32): Created {
  if (existing === null) {
    const body = listenerBody(plan, port, index).set("loadbalancer_id", JsonValue.ofString(lbID));
    return create(api, lbID, "/lbaas/listeners", "listener", body);
  }
  const out = new Created();
  out.id = existing.id;
  const update = listenerUpdate(plan, existing);
  if (update.length > 0) {
    const path = "/lbaas/listeners/" + encodeComponent(existing.id);
    out.error = changed(api, lbID, put(api.lb, path, JsonValue.newObject().set("listener", update)));
  }
  return out;
}

/** What differs between a listener and what the Service asks (an empty object when nothing does). */
function listenerUpdate(plan: Plan, l: Listener): JsonValue {
  const u = JsonValue.newObject();
  const o = plan.opts;
  if (plan.features.tags && !l.tags.includes(plan.lbName)) {
    const tags = JsonValue.newArray();
    for (let i = 0; i < l.tags.length; i++) tags.push(JsonValue.ofString(l.tags[i]));
    u.set("tags", tags.push(JsonValue.ofString(plan.lbName)));
  }
  if (o.connLimit != l.connLimit) u.set("connection_limit", JsonValue.ofNumber(<f64>o.connLimit));
  if (o.keepClientIP != l.xForwardedFor) u.set("insert_headers", insertHeaders(l.insertHeaders, o.keepClientIP));
  if (plan.features.timeouts) {
    if (o.timeoutClientData != l.timeoutClientData) u.set("timeout_client_data", JsonValue.ofNumber(o.timeoutClientData));
    if (o.timeoutMemberConnect != l.timeoutMemberConnect) {
      u.set("timeout_member_connect", JsonValue.ofNumber(o.timeoutMemberConnect));
    }
    if (o.timeoutMemberData != l.timeoutMemberData) u.set("timeout_member_data", JsonValue.ofNumber(o.timeoutMemberData));
    if (o.timeoutTCPInspect != l.timeoutTCPInspect) u.set("timeout_tcp_inspect", JsonValue.ofNumber(o.timeoutTCPInspect));
  }
  if (plan.features.vipACL && !sameSet(o.allowedCIDRs, l.allowedCIDRs)) {
    const cidrs = JsonValue.newArray();
    for (let i = 0; i < o.allowedCIDRs.length; i++) cidrs.push(JsonValue.ofString(o.allowedCIDRs[i]));
    u.set("allowed_cidrs", cidrs);
  }
  return u;
}

/** The listener's inserted headers with X-Forwarded-For set or taken out, the others kept. */
function insertHeaders(current: JsonValue, keepClientIP: bool): JsonValue {
  const out = JsonValue.newObject();
  const keys = current.keys();
  for (let i = 0; i < keys.length; i++) if (keys[i] != "X-Forwarded-For") out.set(keys[i], current.get(keys[i]));
  if (keepClientIP) out.set("X-Forwarded-For", JsonValue.ofString("true"));
  return out;
}

function sameSet(a: string[], b: string[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < a.length; i++) if (!b.includes(a[i])) return false;
  return true;
}

class PoolState {
  id: string = "";
  monitorID: string = "";
  error: PluginError | null = null;
}

function ensurePool(
  api: Api,
  plan: Plan,
  lbID: string,
  listenerID: string,
  listenerProto: string,
  port: ServicePort,
  index: i32,
  existing: Pool | null,
): PoolState {
  const out = new PoolState();
  let pool = existing;
  if (pool !== null && pool.protocol != poolProtocol(plan, listenerProto)) {
    out.error = changedOr404(api, lbID, del(api.lb, "/lbaas/pools/" + encodeComponent(pool.id)));
    if (out.error !== null) return out;
    pool = null;
  }
  if (pool === null) {
    const body = poolBody(plan, listenerProto, index).set("listener_id", JsonValue.ofString(listenerID));
    const made = create(api, lbID, "/lbaas/pools", "pool", body);
    out.error = made.error;
    out.id = made.id;
  } else {
    out.id = pool.id;
    out.monitorID = pool.monitorID;
    if (pool.lbMethod != plan.opts.lbMethod) {
      const update = JsonValue.newObject().set("lb_algorithm", JsonValue.ofString(plan.opts.lbMethod));
      const path = "/lbaas/pools/" + encodeComponent(pool.id);
      out.error = changed(api, lbID, put(api.lb, path, JsonValue.newObject().set("pool", update)));
    }
  }
  if (out.error === null) out.error = syncMembers(api, plan, lbID, out.id, port);
  return out;
}

function syncMembers(api: Api, plan: Plan, lbID: string, poolID: string, port: ServicePort): PluginError | null {
  const current = listMemberKeys(api, poolID);
  if (current.error !== null) return current.error;
  const want = memberKeys(membersOf(plan, port));
  current.keys.sort();
  if (current.keys.join("\n") == want.join("\n")) return null;
  const path = "/lbaas/pools/" + encodeComponent(poolID) + "/members";
  return changed(api, lbID, putJson(api.lb, path, membersBody(plan, port)));
}

function ensureMonitor(
  api: Api,
  plan: Plan,
  lbID: string,
  poolID: string,
  monitorID: string,
  port: ServicePort,
  index: i32,
): PluginError | null {
  const monitorPath = "/lbaas/healthmonitors/" + encodeComponent(monitorID);
  if (monitorID == "") {
    if (!plan.opts.enableMonitor) return null;
    return createMonitor(api, plan, lbID, poolID, port, index);
  }
  if (!plan.opts.enableMonitor) return changedOr404(api, lbID, del(api.lb, monitorPath));
  const found = getMonitor(api, monitorID);
  if (found.error !== null) return found.error;
  const m = found.monitor!;
  if (m.type != monitorType(plan, port)) {
    const error = changedOr404(api, lbID, del(api.lb, monitorPath));
    return error !== null ? error : createMonitor(api, plan, lbID, poolID, port, index);
  }
  const o = plan.opts;
  const name = monitorName(index, plan.lbName);
  const same =
    m.name == name && m.delay == o.monitorDelay && m.timeout == o.monitorTimeout &&
    m.maxRetries == o.monitorMaxRetries && m.maxRetriesDown == o.monitorMaxRetriesDown;
  if (same) return null;
  const update = monitorBody(plan, port, index);
  const body = JsonValue.newObject()
    .set("name", update.get("name"))
    .set("delay", update.get("delay"))
    .set("timeout", update.get("timeout"))
    .set("max_retries", update.get("max_retries"))
    .set("max_retries_down", update.get("max_retries_down"));
  return changed(api, lbID, put(api.lb, monitorPath, JsonValue.newObject().set("healthmonitor", body)));
}

function createMonitor(api: Api, plan: Plan, lbID: string, poolID: string, port: ServicePort, index: i32): PluginError | null {
  const body = monitorBody(plan, port, index).set("pool_id", JsonValue.ofString(poolID));
  return create(api, lbID, "/lbaas/healthmonitors", "healthmonitor", body).error;
}
