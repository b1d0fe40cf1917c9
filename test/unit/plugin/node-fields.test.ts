// Load balancer node lists cut to the fields a plugin declared (ABI 1.7).
import { describe, expect, it, vi } from 'vitest';
import {
  ABI_MINOR,
  type Node,
  hasCachedJSON,
  isKeptList,
  jsonPayload,
  keptList,
  validateRequest,
} from '../../../host/src/abi/index.ts';
import { abiService } from '../../../lab/plugins/index.ts';
import { NodeListProjection, loadBalancerNodeFieldsOf } from '../../../host/src/plugin/runtime/node-fields.ts';

const node = (name: string, labels: Record<string, string> = {}): Node => ({
  name,
  uid: `uid-${name}`,
  providerID: `devcloud://i-${name}`,
  labels,
  annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
});

// keptList freezes the array; its nodes are frozen too, as the service controller's are.
const kept = (nodes: Node[]): Node[] => keptList(nodes.map((n) => Object.freeze(n)));

describe('loadBalancerNodeFieldsOf', () => {
  const of = (abi: string, fields?: string[]) =>
    loadBalancerNodeFieldsOf(fields === undefined ? { abi } : { abi, loadBalancerNodeFields: fields });

  it('means every field when nothing is declared, or everything is', () => {
    expect(of('1.7')).toBeUndefined();
    expect(of('1.7', [])).toBeUndefined();
    expect(of('1.7', ['addresses', 'annotations', 'labels', 'providerID', 'uid', 'name'])).toBeUndefined();
  });

  it('gives the declared fields in the order of the definition, once each', () => {
    expect(of('1.7', ['labels', 'providerID', 'name', 'labels'])).toEqual(['name', 'providerID', 'labels']);
  });

  it('reads the declaration only from a plugin of 1.7 or later', () => {
    expect(of('1.6', ['name'])).toBeUndefined();
    expect(of(`1.${ABI_MINOR}`, ['name'])).toEqual(['name']);
  });

  it('refuses a name no Node has, naming it and the fields there are', () => {
    expect(() => of('1.7', ['name', 'providerId'])).toThrow(
      'loadBalancerNodeFields names "providerId", not a Node field (name, uid, providerID, labels, annotations, addresses)',
    );
  });

  it('refuses systemUUID, which load balancer lists never carry', () => {
    expect(() => of('1.7', ['systemUUID'])).toThrow(/names systemUUID, which load balancer node lists never carry/);
  });

  it('leaves out names of a newer minor than the host speaks, as a host of that minor could know them', () => {
    const newer = `1.${ABI_MINOR + 1}`;
    expect(of(newer, ['providerID', 'rackName', 'systemUUID'])).toEqual(['providerID']);
    // Nothing this host knows: the lists stay whole rather than empty.
    expect(of(newer, ['rackName'])).toBeUndefined();
  });
});

describe('NodeListProjection', () => {
  it('empties every other field, keeping the order of the definition', () => {
    const projection = new NodeListProjection(['providerID', 'name']);
    const cut = projection.project([node('a'), node('b')]);
    const empty = '"labels":{},"annotations":{},"addresses":[]';
    expect(JSON.stringify(cut)).toBe(
      `[{"name":"a","uid":"","providerID":"devcloud://i-a",${empty}},` +
        `{"name":"b","uid":"","providerID":"devcloud://i-b",${empty}}]`,
    );
  });

  it('gives requests that still pass the ABI check (every field of 1.0 present)', () => {
    const nodes = new NodeListProjection(['addresses']).project([node('a')]);
    const request = { clusterName: 'c', service: abiService({}), nodes };
    expect(validateRequest('ensureLoadBalancer', request).ok).toBe(true);
  });

  it('gives a plain list a plain list, made again each time', () => {
    const projection = new NodeListProjection(['name']);
    const nodes = [node('a')];
    const first = projection.project(nodes);
    expect(isKeptList(first)).toBe(false);
    expect(projection.project(nodes)).not.toBe(first);
  });

  it('gives a kept list a kept list with its JSON, the same one each time it is given', () => {
    const projection = new NodeListProjection(['name', 'labels']);
    const nodes = kept([node('a', { zone: 'z1' })]);
    const cut = projection.project(nodes);
    expect(isKeptList(cut)).toBe(true);
    expect(hasCachedJSON(cut)).toBe(true);
    expect(Object.isFrozen(cut[0])).toBe(true);
    expect(cut).toEqual([
      { name: 'a', uid: '', providerID: '', labels: { zone: 'z1' }, annotations: {}, addresses: [] },
    ]);
    expect(projection.project(nodes)).toBe(cut);
  });

  it('keeps the cut list of a new list that differs only in fields the plugin does not read', () => {
    const projection = new NodeListProjection(['name', 'providerID']);
    const before = projection.project(kept([node('a', { zone: 'z1' }), node('b')]));
    const relabelled = projection.project(kept([node('a', { zone: 'z2' }), node('b')]));
    expect(relabelled).toBe(before);
    const renamed = projection.project(kept([node('a', { zone: 'z2' }), node('c')]));
    expect(renamed).not.toBe(before);
    expect(renamed.map((n) => n.name)).toEqual(['a', 'c']);
  });

  it('sends a list again that comes back after another one', () => {
    const projection = new NodeListProjection(['name']);
    const first = projection.project(kept([node('a')]));
    const other = projection.project(kept([node('b')]));
    const again = projection.project(kept([node('a')]));
    expect(other).not.toBe(first);
    // Only the last cut list is reused: the instances hold the other one by now.
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('gives a new cut list when a field the plugin reads changes', () => {
    const projection = new NodeListProjection(['name', 'labels']);
    const before = projection.project(kept([node('a', { zone: 'z1' })]));
    const after = projection.project(kept([node('a', { zone: 'z2' })]));
    expect(after).not.toBe(before);
    expect(after[0]?.labels).toEqual({ zone: 'z2' });
  });

  it('cuts only the nodes a new list changed, and joins the kept pieces into its JSON', () => {
    const projection = new NodeListProjection(['name', 'providerID', 'labels']);
    const a = Object.freeze(node('a', { zone: 'z1' }));
    const b = Object.freeze(node('b', { 'topology.kubernetes.io/zone': 'zü', quote: 'say "hi"' }));
    const before = projection.project(keptList([a, b]));
    const c = Object.freeze(node('c'));
    const after = projection.project(keptList([b, c, a]));
    // The same frozen cut of each node the lists share, in the new order.
    expect(after[0]).toBe(before[1]);
    expect(after[2]).toBe(before[0]);
    expect(after[1]).toEqual({
      name: 'c',
      uid: '',
      providerID: 'devcloud://i-c',
      labels: {},
      annotations: {},
      addresses: [],
    });
    const text = new TextDecoder().decode(jsonPayload({ nodes: after }) as Uint8Array);
    expect(text).toBe(JSON.stringify({ nodes: after }));
    expect(new TextDecoder().decode(jsonPayload({ nodes: projection.project(keptList([])) }) as Uint8Array)).toBe(
      '{"nodes":[]}',
    );
  });

  it('compares a cut made ahead with the last one a call carried, not with other cuts made ahead', () => {
    const projection = new NodeListProjection(['name', 'labels']);
    const sent = projection.project(kept([node('a', { zone: 'z1' })]));
    // A label flaps between two calls: the flapped list is cut ahead and never carried.
    projection.prepare(kept([node('a', { zone: 'z2' })]));
    const back = kept([node('a', { zone: 'z1' })]);
    projection.prepare(back);
    expect(projection.project(back)).toBe(sent);
  });

  it('gives the cut made ahead to the call that carries the list', () => {
    const projection = new NodeListProjection(['name']);
    const nodes = kept([node('a'), node('b')]);
    projection.prepare(nodes);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const cut = projection.project(nodes);
      expect(stringify).not.toHaveBeenCalled();
      expect(cut.map((n) => n.name)).toEqual(['a', 'b']);
    } finally {
      stringify.mockRestore();
    }
  });
});
