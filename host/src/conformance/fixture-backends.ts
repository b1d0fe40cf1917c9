// The fixture's cloud probes and backend fields: the probe that reads a load balancer's backends from the cloud, the
// probe that lists the cloud's load balancers, the reasons a vendor gives where the cloud cannot be probed, the nodes
// the provider must leave out of the backends, and the annotation value ensureLoadBalancer must refuse.
import { fail, isObject, type Json, list, only, str } from './fixture-fields.ts';

/** How a backend is named in the cloud's answer: the node's instance ID, or one of its addresses. */
export type BackendIdentity = 'instanceID' | 'address';

export interface BackendProbe {
  /**
   * What the host GETs (with the plugin's allow-list and credentials). `{lb}` is replaced by the load balancer's name
   * (getLoadBalancerName), `{ingress}` by the first ingress IP or hostname ensureLoadBalancer answered, `{uid}` by
   * the test Service's UID; URL-encoded.
   */
  url: string;
  /**
   * When the answer is a list of load balancers (a query by name or tag): where they are. Each is read on its own,
   * and more than one is a failure (a second load balancer for the Service), never merged.
   */
  loadBalancers: string | undefined;
  /** Where the backends are in the JSON answer (in each load balancer with `loadBalancers`): field names joined by
   * dots, `[]` for every item of a list. */
  path: string;
  identity: BackendIdentity;
  /** With identity `address`: the address type compared (default InternalIP). */
  addressType: string;
}

/** How the kit lists the cloud's load balancers, to count what ensure creates and what delete leaves. */
export interface LoadBalancerProbe {
  /** What the host GETs: every load balancer the provider may create (scope it to the cluster where the API can). */
  url: string;
  /** Where each load balancer's name or ID is in the JSON answer (`items[].name`). */
  path: string;
}

/** `{unavailable: reason}` in place of a probe: why the vendor's cloud cannot be probed, printed in the report. */
export type Unavailable = { unavailable: string };

export interface BadAnnotation {
  key: string;
  value: string;
}

const PLACEHOLDERS = /\{(lb|ingress|uid)\}/g;
const PATH_SEGMENT = /^[^.[\]]+(\[\])?$/;

/** A probe's `{unavailable: reason}`, or undefined when `value` is a probe (or absent). */
export function parseUnavailable(value: unknown, path: string): string | undefined {
  if (!isObject(value) || value.unavailable === undefined) return undefined;
  only(value, path, ['unavailable']);
  return str(value, 'unavailable', path);
}

function probeUrl(value: Json, path: string, placeholder: 'required' | 'optional'): string {
  const url = str(value, 'url', path);
  const named = url.match(PLACEHOLDERS) !== null;
  if (placeholder === 'required' && !named) {
    fail(`${path}.url`, 'must name the load balancer: {lb} (its name), {ingress} or {uid} (the Service UID)');
  }
  let protocol: string | undefined;
  try {
    protocol = new URL(url.replace(PLACEHOLDERS, 'x')).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') fail(`${path}.url`, `"${url}" is not an absolute http(s) URL`);
  return url;
}

function jsonPathAt(value: Json, key: string, path: string): string {
  const jsonPath = str(value, key, path);
  if (!jsonPath.split('.').every((s) => PATH_SEGMENT.test(s))) {
    fail(`${path}.${key}`, `"${jsonPath}" must be field names joined by dots, [] after a list (backends[].id)`);
  }
  return jsonPath;
}

export function parseBackendProbe(value: unknown, path: string): BackendProbe | undefined {
  if (value === undefined || parseUnavailable(value, path) !== undefined) return undefined;
  if (!isObject(value)) fail(path, 'must be {url, loadBalancers?, path, identity, addressType?} or {unavailable}');
  only(value, path, ['url', 'loadBalancers', 'path', 'identity', 'addressType']);
  const loadBalancers = value.loadBalancers === undefined ? undefined : jsonPathAt(value, 'loadBalancers', path);
  const url = probeUrl(value, path, loadBalancers === undefined ? 'required' : 'optional');
  const jsonPath = jsonPathAt(value, 'path', path);
  const identity = str(value, 'identity', path);
  if (identity !== 'instanceID' && identity !== 'address') fail(`${path}.identity`, 'must be instanceID or address');
  const addressType = str(value, 'addressType', path, 'InternalIP');
  if (identity !== 'address' && value.addressType !== undefined) fail(`${path}.addressType`, 'needs identity address');
  return { url, loadBalancers, path: jsonPath, identity, addressType };
}

export function parseLoadBalancerProbe(value: unknown, path: string): LoadBalancerProbe | undefined {
  if (value === undefined || parseUnavailable(value, path) !== undefined) return undefined;
  if (!isObject(value)) fail(path, 'must be {url, path} or {unavailable}');
  only(value, path, ['url', 'path']);
  return { url: probeUrl(value, path, 'optional'), path: jsonPathAt(value, 'path', path) };
}

/** `nodeSets.filtered`: [{name, reason}] -> name -> reason; `resolve` insists the name is a node of the fixture. */
export function parseFiltered(
  sets: Json,
  path: string,
  resolve: (name: unknown, path: string) => string,
): Map<string, string> {
  const filtered = new Map<string, string>();
  list(sets, 'filtered', path).forEach((item, i) => {
    const at = `${path}.filtered[${i}]`;
    if (!isObject(item)) fail(at, 'must be {name, reason}: a node the provider leaves out, and why');
    only(item, at, ['name', 'reason']);
    filtered.set(resolve(item.name, `${at}.name`), str(item, 'reason', at));
  });
  return filtered;
}

export function parseBadAnnotation(value: unknown, path: string): BadAnnotation | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) fail(path, 'must be {key, value}: an annotation value the provider must refuse');
  only(value, path, ['key', 'value']);
  const v = value.value;
  if (typeof v !== 'string') fail(`${path}.value`, 'must be a string');
  return { key: str(value, 'key', path), value: v };
}

/** The values at `path` in `doc` (a list at the end is its items); a string naming the first step that does not fit. */
export function itemsAt(doc: unknown, path: string): unknown[] | string {
  let current: unknown[] = [doc];
  const walked: string[] = [];
  for (const segment of path.split('.')) {
    const each = segment.endsWith('[]');
    const field = each ? segment.slice(0, -2) : segment;
    walked.push(segment);
    const next: unknown[] = [];
    for (const item of current) {
      if (!isObject(item) || !(field in item)) return `${walked.join('.')}: no field "${field}"`;
      const v = item[field];
      if (!each) next.push(v);
      else if (Array.isArray(v)) next.push(...(v as unknown[]));
      else return `${walked.join('.')}: not a list`;
    }
    current = next;
  }
  if (current.length === 1 && Array.isArray(current[0])) current = current[0] as unknown[];
  return current;
}

/** The strings at `path` in `doc`; a string naming the first step that does not fit. */
export function valuesAt(doc: unknown, path: string): string[] | string {
  const current = itemsAt(doc, path);
  if (typeof current === 'string') return current;
  const out: string[] = [];
  for (const v of current) {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number') out.push(String(v));
    else return `${path}: holds ${JSON.stringify(v)?.slice(0, 60)}, not strings`;
  }
  return out;
}
