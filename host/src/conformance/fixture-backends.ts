// The fixture's backend fields: the probe that reads a load balancer's backends from the cloud, the nodes the provider
// must leave out of them, and the annotation value ensureLoadBalancer must refuse.
import { fail, isObject, type Json, list, only, str } from './fixture-fields.ts';

/** How a backend is named in the cloud's answer: the node's instance ID, or one of its addresses. */
export type BackendIdentity = 'instanceID' | 'address';

export interface BackendProbe {
  /**
   * What the host GETs (with the plugin's allow-list and credentials). `{lb}` is replaced by the load balancer's name
   * (getLoadBalancerName), `{ingress}` by the first ingress IP or hostname ensureLoadBalancer answered; URL-encoded.
   */
  url: string;
  /** Where the backends are in the JSON answer: field names joined by dots, `[]` for every item of a list. */
  path: string;
  identity: BackendIdentity;
  /** With identity `address`: the address type compared (default InternalIP). */
  addressType: string;
}

export interface BadAnnotation {
  key: string;
  value: string;
}

const PLACEHOLDERS = /\{(lb|ingress)\}/;
const PATH_SEGMENT = /^[^.[\]]+(\[\])?$/;

export function parseBackendProbe(value: unknown, path: string): BackendProbe | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) fail(path, 'must be {url, path, identity, addressType?}');
  only(value, path, ['url', 'path', 'identity', 'addressType']);
  const url = str(value, 'url', path);
  if (!PLACEHOLDERS.test(url)) fail(`${path}.url`, 'must name the load balancer: {lb} (its name) or {ingress}');
  let protocol: string | undefined;
  try {
    protocol = new URL(url.replace(PLACEHOLDERS, 'x')).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') fail(`${path}.url`, `"${url}" is not an absolute http(s) URL`);
  const jsonPath = str(value, 'path', path);
  if (!jsonPath.split('.').every((s) => PATH_SEGMENT.test(s))) {
    fail(`${path}.path`, `"${jsonPath}" must be field names joined by dots, [] after a list (backends[].id)`);
  }
  const identity = str(value, 'identity', path);
  if (identity !== 'instanceID' && identity !== 'address') fail(`${path}.identity`, 'must be instanceID or address');
  const addressType = str(value, 'addressType', path, 'InternalIP');
  if (identity !== 'address' && value.addressType !== undefined) fail(`${path}.addressType`, 'needs identity address');
  return { url, path: jsonPath, identity, addressType };
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

/** The strings at `path` in `doc`; a string naming the first step that does not fit. */
export function valuesAt(doc: unknown, path: string): string[] | string {
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
  const out: string[] = [];
  for (const v of current) {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number') out.push(String(v));
    else return `${path}: holds ${JSON.stringify(v)?.slice(0, 60)}, not strings`;
  }
  return out;
}
