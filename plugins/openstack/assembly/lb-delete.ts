// Deleting piece by piece, as OCCM's deleteLoadBalancer does without cascade: the health monitors, then each
// listener's pool (its members go with it) and the listener, waiting for ACTIVE after each; then the load balancer
// itself, or, when the load balancer is not this Service's to delete (another Service's tag on it, or not named by a
// CCM), only this Service's listeners and its name tag.
import { encodeComponent, JsonValue, PluginError } from "@wasm-ccm/plugin-sdk";
import { Answer, Api, del, put } from "./api";
import { Listener, listListeners, listPools, LoadBalancer, waitActive, waitDeleted } from "./octavia";

function removed(api: Api, lbID: string, answer: Answer): PluginError | null {
  if (answer.notFound) return null;
  if (!answer.ok) return answer.error;
  return waitActive(api, lbID).error;
}

/** Deletes the listeners this Service made (all of them when `wholeLB`), then the load balancer or its name tag. */
export function deleteOwnParts(api: Api, lb: LoadBalancer, lbName: string, wholeLB: bool): PluginError | null {
  const listeners = listListeners(api, lb.id);
  if (listeners.error !== null) return listeners.error;
  const pools = listPools(api, lb.id);
  if (pools.error !== null) return pools.error;
  const targets: Listener[] = [];
  for (let i = 0; i < listeners.items.length; i++) {
    if (wholeLB || listeners.items[i].tags.includes(lbName)) targets.push(listeners.items[i]);
  }
  for (let i = 0; i < targets.length; i++) {
    const pool = pools.ofListener(targets[i].id);
    if (pool === null || pool.monitorID == "") continue;
    const error = removed(api, lb.id, del(api.lb, "/lbaas/healthmonitors/" + encodeComponent(pool.monitorID)));
    if (error !== null) return error;
  }
  for (let i = 0; i < targets.length; i++) {
    const pool = pools.ofListener(targets[i].id);
    if (pool !== null) {
      const error = removed(api, lb.id, del(api.lb, "/lbaas/pools/" + encodeComponent(pool.id)));
      if (error !== null) return error;
    }
    const error = removed(api, lb.id, del(api.lb, "/lbaas/listeners/" + encodeComponent(targets[i].id)));
    if (error !== null) return error;
  }
  if (wholeLB) {
    const answer = del(api.lb, "/lbaas/loadbalancers/" + encodeComponent(lb.id));
    if (!answer.ok && !answer.notFound) return answer.error;
    return waitDeleted(api, lb.id);
  }
  if (!lb.tags.includes(lbName)) return null;
  const tags = JsonValue.newArray();
  for (let i = 0; i < lb.tags.length; i++) if (lb.tags[i] != lbName) tags.push(JsonValue.ofString(lb.tags[i]));
  const body = JsonValue.newObject().set("loadbalancer", JsonValue.newObject().set("tags", tags));
  return removed(api, lb.id, put(api.lb, "/lbaas/loadbalancers/" + encodeComponent(lb.id), body));
}
