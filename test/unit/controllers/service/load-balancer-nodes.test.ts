import { afterEach, describe, expect, it, vi } from 'vitest';
import { toABINode } from '../../../../host/src/controllers/convert.ts';
import type { WireNode } from '../../../../host/src/controllers/framework/wire-objects.ts';
import { LoadBalancerNodeSet } from '../../../../host/src/controllers/service/load-balancer-nodes.ts';
import { nodeIncludedInLoadBalancers } from '../../../../host/src/controllers/service/rules.ts';
import type { EventHandlers } from '../../../../host/src/kube/informer/informer.ts';
import { hasCachedJSON, jsonPayload, type KeptList, type Node } from '../../../../host/src/abi/index.ts';

/** The node set as upstream compares it (name -> providerID, sorted): what LoadBalancerNodeSet.identity must agree with. */
function nodeSetKey(nodes: readonly WireNode[]): string {
  return nodes
    .map((n) => `${n.metadata?.name ?? ''}=${n.spec?.providerID ?? ''}`)
    .sort()
    .join(',');
}

/** A node informer reduced to its events, with the cache it would hold. */
class FakeNodes {
  readonly cache = new Map<string, WireNode>();
  private handlers: EventHandlers<WireNode> | undefined;

  addEventHandler(handlers: EventHandlers<WireNode>): () => void {
    this.handlers = handlers;
    for (const node of this.cache.values()) void handlers.onAdd?.(node, false);
    return () => (this.handlers = undefined);
  }

  set(node: WireNode): void {
    const name = node.metadata!.name!;
    const old = this.cache.get(name);
    this.cache.set(name, node);
    if (old) void this.handlers?.onUpdate?.(old, node);
    else void this.handlers?.onAdd?.(node, false);
  }

  delete(name: string, tombstone = false): void {
    const old = this.cache.get(name)!;
    this.cache.delete(name);
    void this.handlers?.onDelete?.(tombstone ? { key: name, obj: old, finalStateUnknown: true } : old);
  }

  /** What the controller computed before the node set: list, filter, convert. */
  included(): WireNode[] {
    return [...this.cache.values()].filter((n) => nodeIncludedInLoadBalancers(n));
  }
}

function node(name: string, extra: { providerID?: string; labels?: Record<string, string>; ip?: string } = {}) {
  return {
    metadata: { name, uid: `uid-${name}`, labels: { zone: 'a', ...extra.labels }, annotations: { note: name } },
    spec: { providerID: extra.providerID ?? `fake://${name}` },
    status: { addresses: [{ type: 'InternalIP', address: extra.ip ?? '10.0.0.1' }], conditions: [] },
  } satisfies WireNode;
}

function setup(...initial: WireNode[]) {
  const nodes = new FakeNodes();
  for (const n of initial) nodes.set(n);
  return { nodes, set: new LoadBalancerNodeSet(nodes) };
}

const names = (set: LoadBalancerNodeSet) => set.nodes().map((n) => n.name);

describe('LoadBalancerNodeSet', () => {
  it('starts from the nodes already cached and follows adds and deletes', () => {
    const { nodes, set } = setup(node('a'), node('b'));
    expect(names(set)).toEqual(['a', 'b']);
    expect(set.size).toBe(2);
    nodes.set(node('c'));
    expect(names(set)).toEqual(['a', 'b', 'c']);
    nodes.delete('b');
    expect(names(set)).toEqual(['a', 'c']);
    nodes.delete('a', true);
    expect(names(set)).toEqual(['c']);
    expect(set.size).toBe(1);
  });

  it('gives each included node in ABI form, in the cache order', () => {
    const { nodes, set } = setup(node('b'), node('a', { labels: { role: 'x' } }));
    expect(set.nodes()).toEqual(nodes.included().map((n) => toABINode(n)));
  });

  it('leaves out excluded, deleting and autoscaler-removed nodes, and takes them back', () => {
    const { nodes, set } = setup(node('a'), node('b'), node('c'), node('d'));
    const before = set.identity();
    nodes.set(node('a', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } }));
    nodes.set({ ...node('b'), metadata: { ...node('b').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    nodes.set({
      ...node('c'),
      spec: { ...node('c').spec, taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] },
    });
    expect(names(set)).toEqual(['d']);
    expect(set.identity()).not.toBe(before);
    nodes.set(node('a', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'false' } }));
    nodes.set(node('b'));
    nodes.set(node('c'));
    // Back in their cache places, not appended.
    expect(names(set)).toEqual(['a', 'b', 'c', 'd']);
    expect(set.identity()).toBe(before);
  });

  it('changes identity on a providerID change, not on other changes', () => {
    const { nodes, set } = setup(node('a'), node('b'));
    const id = set.identity();
    nodes.set(node('a', { labels: { new: 'label' }, ip: '10.9.9.9' }));
    expect(set.identity()).toBe(id);
    expect(set.nodes()[0]!.addresses).toEqual([{ type: 'InternalIP', address: '10.9.9.9' }]);
    nodes.set(node('a', { providerID: 'fake://other' }));
    expect(set.identity()).not.toBe(id);
    nodes.set(node('a', { providerID: '' }));
    expect(set.identity()).not.toBe(id);
  });

  it('gives a node that left and came back unchanged the same identity (upstream compares the sets)', () => {
    const { nodes, set } = setup(node('a'), node('b'));
    const id = set.identity();
    nodes.delete('a');
    nodes.set(node('a'));
    expect(set.identity()).toBe(id);
    expect(new Set(names(set))).toEqual(new Set(['a', 'b']));
  });

  it('returns the same frozen list until an included node changes its ABI form', () => {
    const { nodes, set } = setup(node('a'), node('b'));
    const list = set.nodes();
    expect(set.nodes()).toBe(list);
    // A status-only change (conditions) and a resync (same object) keep the list.
    nodes.set({ ...node('a'), status: { ...node('a').status, conditions: [{ type: 'Ready', status: 'False' }] } });
    const same = nodes.cache.get('b')!;
    nodes.set(same);
    // A node that is not included does not matter.
    nodes.set(node('x', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }));
    nodes.set(node('x', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' }, ip: '1.1.1.1' }));
    expect(set.nodes()).toBe(list);
    nodes.set(node('b', { labels: { zone: 'b' } }));
    const next = set.nodes();
    expect(next).not.toBe(list);
    expect(next[1]!.labels).toEqual({ zone: 'b' });
    // The old list is untouched: a call that holds it still sends what it was given.
    expect(list[1]!.labels).toEqual({ zone: 'a' });
  });

  it('gives a new list for a change to any field of the ABI form, and only for one', () => {
    const { nodes, set } = setup(node('a'));
    const base = node('a');
    const variants: WireNode[] = [
      { ...base, metadata: { ...base.metadata, uid: 'other' } },
      { ...base, metadata: { ...base.metadata, annotations: { note: 'changed' } } },
      { ...base, metadata: { ...base.metadata, labels: { zone: 'a', extra: '' } } },
      node('a', { ip: '10.0.0.2' }),
      {
        ...base,
        status: { ...base.status, addresses: [...base.status.addresses, { type: 'Hostname', address: 'a' }] },
      },
      node('a', { providerID: 'fake://other' }),
    ];
    for (const variant of variants) {
      nodes.set(base);
      const before = set.nodes();
      nodes.set(structuredClone(base));
      expect(set.nodes()).toBe(before);
      nodes.set(variant);
      const after = set.nodes();
      expect(after).not.toBe(before);
      expect(after[0]).toEqual(toABINode(variant));
    }
  });

  it('converts a node only when the list is next asked for, and only its latest version', () => {
    const reads = new Map<string, number>();
    // Counts how often a node's annotations are read: toABINode reads them once per conversion.
    const counted = (n: WireNode, tag: string): WireNode => {
      const metadata = { ...n.metadata };
      Object.defineProperty(metadata, 'annotations', {
        enumerable: true,
        get: () => {
          reads.set(tag, (reads.get(tag) ?? 0) + 1);
          return n.metadata?.annotations;
        },
      });
      return { ...n, metadata };
    };
    const { nodes, set } = setup(counted(node('a'), 'a1'));
    nodes.set(counted(node('a', { ip: '10.0.0.2' }), 'a2'));
    nodes.set(counted(node('b'), 'b1'));
    nodes.set(counted(node('a', { ip: '10.0.0.3' }), 'a3'));
    expect(set.size).toBe(2);
    expect(reads.size).toBe(0);
    expect(set.nodes().map((n) => n.addresses[0]!.address)).toEqual(['10.0.0.3', '10.0.0.1']);
    expect(Object.fromEntries(reads)).toEqual({ a3: 1, b1: 1 });
    set.nodes();
    expect(Object.fromEntries(reads)).toEqual({ a3: 1, b1: 1 });
    // A node excluded before it was converted is never converted.
    nodes.set(counted(node('c'), 'c1'));
    nodes.set(counted(node('c', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }), 'c2'));
    expect(names(set)).toEqual(['a', 'b']);
    expect(reads.has('c1')).toBe(false);
  });

  it('hands out a list no caller can corrupt', () => {
    const { set } = setup(node('b'), node('a'));
    const list = set.nodes();
    expect(() => list.push(list[0]!)).toThrow(TypeError);
    expect(() => list.sort()).toThrow(TypeError);
    expect(() => ((list[0] as { name: string }).name = 'z')).toThrow(TypeError);
    expect(() => (list[0]!.labels.zone = 'z')).toThrow(TypeError);
    expect(() => (list[0]!.annotations.note = 'z')).toThrow(TypeError);
    expect(() => list[0]!.addresses.pop()).toThrow(TypeError);
    expect(() => (list[0]!.addresses[0]!.address = 'z')).toThrow(TypeError);
    expect(set.nodes()).toEqual([toABINode(node('b')), toABINode(node('a'))]);
  });

  it('serializes a request with the list as JSON.stringify would, from the cached text', () => {
    const { set } = setup(node('a', { labels: { 'topology.kubernetes.io/zone': 'zü' } }), node('b'));
    const nodes = set.nodes();
    expect(hasCachedJSON(nodes)).toBe(true);
    const request = { clusterName: 'kubernetes', service: { name: 's', ports: [] }, nodes };
    const payload = jsonPayload(request);
    expect(payload).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(payload as Uint8Array)).toBe(JSON.stringify(request));
    expect(JSON.parse(JSON.stringify(request)).nodes).toEqual(nodes);
    // An empty set too.
    const empty = setup().set.nodes();
    expect(new TextDecoder().decode(jsonPayload({ nodes: empty }) as Uint8Array)).toBe('{"nodes":[]}');
  });

  it('computes the identity once per membership change, not per call', () => {
    const { nodes, set } = setup(node('a'));
    const id = set.identity();
    expect(set.identity()).toBe(id);
    nodes.set(node('b'));
    const id2 = set.identity();
    expect(id2).not.toBe(id);
    expect(set.identity()).toBe(id2);
  });

  it('stops following the informer once detached', () => {
    const { nodes, set } = setup(node('a'));
    set.detach();
    nodes.set(node('b'));
    expect(names(set)).toEqual(['a']);
  });

  describe('with prepare', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    function preparing(...initial: WireNode[]) {
      vi.useFakeTimers();
      const nodes = new FakeNodes();
      for (const n of initial) nodes.set(n);
      const given: KeptList<Node>[] = [];
      const set = new LoadBalancerNodeSet(nodes, { prepare: (list) => given.push(list), prepareDelayMs: 50 });
      return { nodes, set, given };
    }

    it('gives the list once a run of node events is over, made as nodes() makes it', () => {
      const { nodes, set, given } = preparing(node('a'), node('b'));
      nodes.set(node('c'));
      vi.advanceTimersByTime(49);
      expect(given).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(given).toHaveLength(1);
      expect(given[0]!.map((n) => n.name)).toEqual(['a', 'b', 'c']);
      // The list a load balancer call then takes is the one made, cut and serialized ahead.
      expect(set.nodes()).toBe(given[0]);
    });

    it('gives nothing again for updates that leave the list as it was (heartbeats, conditions)', () => {
      const { nodes, given } = preparing(node('a'));
      vi.advanceTimersByTime(50);
      expect(given).toHaveLength(1);
      const heartbeat = structuredClone(node('a'));
      heartbeat.status.conditions = [{ type: 'Ready', status: 'True' }] as never;
      nodes.set(heartbeat);
      vi.advanceTimersByTime(50);
      expect(given).toHaveLength(1);
      nodes.set(node('a', { ip: '10.0.0.9' }));
      nodes.delete('a');
      nodes.set(node('d'));
      vi.advanceTimersByTime(50);
      expect(given).toHaveLength(2);
      expect(given[1]!.map((n) => n.name)).toEqual(['d']);
    });

    it('has the identity hashed by then', () => {
      const { nodes, set, given } = preparing(node('a'));
      nodes.set(node('b'));
      vi.advanceTimersByTime(50);
      expect(given).toHaveLength(1);
      const spy = vi.spyOn(set as unknown as { hash: (e: unknown) => void }, 'hash');
      set.identity();
      expect(spy).not.toHaveBeenCalled();
    });

    it('keeps a failing prepare inside its timer, and gives the same list again at the next run', () => {
      vi.useFakeTimers();
      const nodes = new FakeNodes();
      nodes.set(node('a'));
      const given: KeptList<Node>[] = [];
      let fail = true;
      const set = new LoadBalancerNodeSet(nodes, {
        prepare: (list) => {
          if (fail) throw new Error('plugin closed');
          given.push(list);
        },
      });
      expect(() => vi.advanceTimersByTime(250)).not.toThrow();
      expect(given).toEqual([]);
      fail = false;
      // A heartbeat: the list stays as it was, and it was not given yet.
      nodes.set(structuredClone(node('a')));
      vi.advanceTimersByTime(250);
      expect(given).toHaveLength(1);
      expect(given[0]).toBe(set.nodes());
    });

    it('gives nothing once detached, its timer cleared', () => {
      const { nodes, set, given } = preparing(node('a'));
      expect(vi.getTimerCount()).toBe(1);
      set.detach();
      expect(vi.getTimerCount()).toBe(0);
      nodes.set(node('b'));
      vi.advanceTimersByTime(1_000);
      expect(given).toEqual([]);
    });
  });

  it('agrees with list-filter-convert and with nodeSetKey over random changes', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const { nodes, set } = setup();
    const seen = new Map<string, string>();
    for (let step = 0; step < 2000; step++) {
      const name = `n${random(40)}`;
      const op = random(6);
      if (op === 0 && nodes.cache.has(name)) nodes.delete(name, random(2) === 0);
      else {
        const labels: Record<string, string> =
          random(4) === 0 ? { 'node.kubernetes.io/exclude-from-external-load-balancers': 'yes' } : {};
        nodes.set(node(name, { providerID: `p${random(3)}`, labels, ip: `10.0.0.${random(3)}` }));
      }
      // Asked for now and then, so the conversions and hashes it defers pile up over several changes in between.
      if (random(3) !== 0) continue;
      const included = nodes.included();
      expect(set.nodes()).toEqual(included.map((n) => toABINode(n)));
      // Equal identities exactly for equal sets, as the sorted name=providerID key tells.
      const key = nodeSetKey(included);
      const id = set.identity();
      expect(seen.get(id) ?? key).toBe(key);
      seen.set(id, key);
    }
    expect(new Set(seen.values()).size).toBe(seen.size);
  });
});
