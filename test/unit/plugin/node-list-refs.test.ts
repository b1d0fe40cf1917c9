// Kept node lists (ABI 1.2) on the host side: which instance gets the whole list and which only its reference.
import { describe, expect, it, vi } from 'vitest';
import { type DescribeResponse, type Node, type Service, isKeptList, keptList } from '../../../host/src/abi/index.ts';
import { InstanceCallError } from '../../../host/src/plugin/sandbox/instance-errors.ts';
import type { ExitCause, PluginInstance } from '../../../host/src/plugin/sandbox/plugin-instance.ts';
import { DEFAULT_LIMITS } from '../../../host/src/plugin/config/options.ts';
import { type InstanceExitListener, InstanceSet } from '../../../host/src/plugin/sandbox/instance-set.ts';
import { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { NodeListRefs } from '../../../host/src/plugin/runtime/node-list-refs.ts';
import { type NodeField, NodeListProjection } from '../../../host/src/plugin/runtime/node-fields.ts';
import { recordingLogger } from './support/recording-logger.ts';

const OK = new TextEncoder().encode('{"ok":{"status":{"ingress":[]}}}');
const UNKNOWN_REF = (ref: number) =>
  new TextEncoder().encode(
    JSON.stringify({
      error: { code: 'Invalid', message: `unknown nodesRef ${ref}: this instance keeps no such list` },
    }),
  );

interface Sent {
  instance: number;
  nodes: number;
  nodesRef: number | undefined;
}

// A stand-in for PluginInstance: records what each call was sent, answers what `answer` says.
class FakeInstance {
  static next = 1;
  readonly id = FakeInstance.next++;
  alive = true;
  answer: (request: { nodes: unknown[]; nodesRef?: number }) => Uint8Array = () => OK;
  readonly #sent: Sent[];
  readonly #onExit: InstanceExitListener<FakeInstance> | undefined;
  constructor(sent: Sent[], onExit?: InstanceExitListener<FakeInstance>) {
    this.#sent = sent;
    this.#onExit = onExit;
  }
  async call(_exportName: string, input: Uint8Array | string, _timeoutMs: number): Promise<Uint8Array> {
    const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
    const request = JSON.parse(text) as { nodes: unknown[]; nodesRef?: number };
    this.#sent.push({ instance: this.id, nodes: request.nodes.length, nodesRef: request.nodesRef });
    return this.answer(request);
  }
  async terminate(cause: ExitCause, reason: string): Promise<void> {
    if (!this.alive) return;
    this.alive = false;
    this.#onExit?.(this, cause, reason);
  }
}

const node = (name: string): Node => ({ name, uid: name, providerID: '', labels: {}, annotations: {}, addresses: [] });
const keptNodes = (n: number): Node[] => keptList(Array.from({ length: n }, (_, i) => node(`n${i}`)));
const service = { name: 'web', namespace: 'default', uid: 'u' } as Service;
const request = (nodes: Node[]) => ({ clusterName: 'c', service, nodes });
const encode = (wire: object) => JSON.stringify(wire);

describe('NodeListRefs', () => {
  it('sends the list with its ref first, then only the ref; another instance gets the list', async () => {
    const sent: Sent[] = [];
    const refs = new NodeListRefs();
    const a = new FakeInstance(sent);
    const b = new FakeInstance(sent);
    const nodes = keptNodes(3);
    await refs.call(a, 'ccm_ensure_load_balancer', request(nodes), 1000, encode);
    await refs.call(a, 'ccm_update_load_balancer', request(nodes), 1000, encode);
    await refs.call(b, 'ccm_ensure_load_balancer', request(nodes), 1000, encode);
    await refs.call(b, 'ccm_ensure_load_balancer', request(nodes), 1000, encode);
    const ref = refs.refOf(nodes);
    expect(ref).toBeGreaterThan(0);
    expect(sent).toEqual([
      { instance: a.id, nodes: 3, nodesRef: ref },
      { instance: a.id, nodes: 0, nodesRef: ref },
      { instance: b.id, nodes: 3, nodesRef: ref },
      { instance: b.id, nodes: 0, nodesRef: ref },
    ]);
  });

  it('gives a new array (new content version) a new ref, sent in full', async () => {
    const sent: Sent[] = [];
    const refs = new NodeListRefs();
    const a = new FakeInstance(sent);
    const first = keptNodes(2);
    const second = keptNodes(2);
    await refs.call(a, 'x', request(first), 1000, encode);
    await refs.call(a, 'x', request(second), 1000, encode);
    await refs.call(a, 'x', request(first), 1000, encode);
    expect(refs.refOf(second)).not.toBe(refs.refOf(first));
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([
      [2, refs.refOf(first)],
      [2, refs.refOf(second)],
      // The instance keeps one list: going back means sending the first again.
      [2, refs.refOf(first)],
    ]);
  });

  it('sends plain arrays (frozen or not) and empty lists in full, without a ref', async () => {
    const sent: Sent[] = [];
    const refs = new NodeListRefs();
    const a = new FakeInstance(sent);
    const mutable = [node('a')];
    for (let i = 0; i < 2; i++) await refs.call(a, 'x', request(mutable), 1000, encode);
    // Frozen is not enough: only a KeptList says its identity stands for its content.
    const frozen = Object.freeze([node('b')]) as Node[];
    for (let i = 0; i < 2; i++) await refs.call(a, 'x', request(frozen), 1000, encode);
    for (let i = 0; i < 2; i++) await refs.call(a, 'x', request(keptNodes(0)), 1000, encode);
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([
      [1, undefined],
      [1, undefined],
      [1, undefined],
      [1, undefined],
      [0, undefined],
      [0, undefined],
    ]);
  });

  it('re-sends the list once on the same instance when it answers unknown nodesRef', async () => {
    const sent: Sent[] = [];
    let resends = 0;
    const refs = new NodeListRefs(() => resends++);
    const a = new FakeInstance(sent);
    const nodes = keptNodes(2);
    const ref = refs.refOf(nodes);
    await refs.call(a, 'x', request(nodes), 1000, encode);
    // The instance "forgets" (should never happen): a ref-only request is refused once.
    a.answer = (r) => (r.nodes.length === 0 ? UNKNOWN_REF(ref) : OK);
    const output = await refs.call(a, 'x', request(nodes), 1000, encode);
    expect(new TextDecoder().decode(output)).toBe(new TextDecoder().decode(OK));
    expect(resends).toBe(1);
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([
      [2, ref],
      [0, ref],
      [2, ref],
    ]);
    // A vendor's own Invalid is an answer, not a reason to re-send.
    a.answer = () => new TextEncoder().encode('{"error":{"code":"Invalid","message":"bad annotation"}}');
    sent.length = 0;
    await refs.call(a, 'x', request(nodes), 1000, encode);
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([[0, ref]]);
  });

  it('forgets the ref of an instance whose call failed', async () => {
    const sent: Sent[] = [];
    const refs = new NodeListRefs();
    const a = new FakeInstance(sent);
    const nodes = keptNodes(2);
    await refs.call(a, 'x', request(nodes), 1000, encode);
    a.answer = () => {
      throw new InstanceCallError('nonZeroReturn', 'returned 1');
    };
    await expect(refs.call(a, 'x', request(nodes), 1000, encode)).rejects.toThrow(/returned 1/);
    expect(refs.heldBy(a)).toBeUndefined();
    a.answer = () => OK;
    await refs.call(a, 'x', request(nodes), 1000, encode);
    expect(sent.map((s) => s.nodes)).toEqual([2, 0, 2]);
  });
});

describe('LoadedPlugin with kept node lists', () => {
  function loaded(abi: string, sent: Sent[], loadBalancerNodeFields?: NodeField[]) {
    const instances: FakeInstance[] = [];
    const resends = { count: 0 };
    const { logger, records } = recordingLogger();
    const pool = new InstanceSet<FakeInstance>({
      size: 1,
      logger,
      onRestart: () => {},
      restartBackoffMs: 1,
      start: async (onExit) => {
        const instance = new FakeInstance(sent, onExit);
        instances.push(instance);
        return instance;
      },
    });
    const description: DescribeResponse = {
      abi,
      providerName: 'fake',
      version: '1',
      capabilities: ['loadBalancer'],
      hasClusterID: false,
      ...(loadBalancerNodeFields ? { loadBalancerNodeFields } : {}),
    };
    const plugin = new LoadedPlugin({
      description,
      sha256: '',
      capabilities: new Set(['loadBalancer']),
      instances: pool as unknown as InstanceSet<PluginInstance>,
      limits: { ...DEFAULT_LIMITS, callTimeoutMs: 1000, startTimeoutMs: 1000 },
      exports: new Set(),
      metrics: { observeCall() {}, instanceRestarted() {}, keptListResent: () => resends.count++ },
      logger,
      hostGet: () => Promise.reject(new Error('no network in this test')),
      onClose: () => {},
    });
    return { plugin, pool, instances, records, resends };
  }

  it('sends plugins older than ABI 1.2 the whole list every time, without a ref', async () => {
    const sent: Sent[] = [];
    const { plugin, pool } = loaded('1.1', sent);
    await pool.fill();
    const nodes = keptNodes(2);
    for (let i = 0; i < 3; i++) await plugin.call('ensureLoadBalancer', request(nodes));
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([
      [2, undefined],
      [2, undefined],
      [2, undefined],
    ]);
    await plugin.close();
  });

  it('counts and logs a kept list it had to send again', async () => {
    const sent: Sent[] = [];
    const { plugin, pool, instances, records, resends } = loaded('1.2', sent);
    await pool.fill();
    const nodes = keptNodes(2);
    await plugin.call('ensureLoadBalancer', request(nodes));
    const only = instances[0]!;
    only.answer = (r) => (r.nodes.length === 0 ? UNKNOWN_REF(r.nodesRef ?? 0) : OK);
    await plugin.call('ensureLoadBalancer', request(nodes));
    expect(resends.count).toBe(1);
    expect(records.some((r) => r.message === 'plugin instance did not hold its node list; sent it again')).toBe(true);
    await plugin.close();
  });

  it('sends a 1.2 plugin the list once per instance; a replaced instance gets it again', async () => {
    const sent: Sent[] = [];
    const { plugin, pool, instances } = loaded('1.2', sent);
    await pool.fill();
    const nodes = keptNodes(2);
    await plugin.call('ensureLoadBalancer', request(nodes));
    await plugin.call('updateLoadBalancer', request(nodes));
    // The instance traps (the pool replaces it): its successor starts with no list.
    const first = instances[0]!;
    first.answer = () => {
      void first.terminate('trap', 'trapped');
      throw new InstanceCallError('trap', 'the plugin trapped');
    };
    await expect(plugin.call('ensureLoadBalancer', request(nodes))).rejects.toThrow(/trapped/);
    await expect.poll(() => instances.length).toBe(2);
    await plugin.call('ensureLoadBalancer', request(nodes));
    await plugin.call('ensureLoadBalancer', request(nodes));
    const ref = sent[0]!.nodesRef;
    expect(ref).toBeGreaterThan(0);
    expect(sent).toEqual([
      { instance: first.id, nodes: 2, nodesRef: ref },
      { instance: first.id, nodes: 0, nodesRef: ref },
      { instance: first.id, nodes: 0, nodesRef: ref },
      { instance: instances[1]!.id, nodes: 2, nodesRef: ref },
      { instance: instances[1]!.id, nodes: 0, nodesRef: ref },
    ]);
    await plugin.close();
  });

  it('sends a plugin that declared its fields only those, and keeps its list over changes to the others', async () => {
    const sent: Sent[] = [];
    const { plugin, pool, instances } = loaded('1.7', sent, ['name', 'providerID']);
    await pool.fill();
    const bodies: unknown[][] = [];
    instances[0]!.answer = (r) => {
      bodies.push(r.nodes);
      return OK;
    };
    const labelled = (zone: string): Node[] =>
      keptList(['a', 'b'].map((name) => Object.freeze({ ...node(name), providerID: `p://${name}`, labels: { zone } })));
    await plugin.call('ensureLoadBalancer', request(labelled('z1')));
    await plugin.call('updateLoadBalancer', request(labelled('z2')));
    const empty = { uid: '', labels: {}, annotations: {}, addresses: [] };
    expect(bodies[0]).toEqual([
      { name: 'a', providerID: 'p://a', ...empty },
      { name: 'b', providerID: 'p://b', ...empty },
    ]);
    const ref = sent[0]!.nodesRef;
    expect(sent.map((s) => [s.nodes, s.nodesRef])).toEqual([
      [2, ref],
      [0, ref],
    ]);
    await plugin.close();
  });

  it('cuts plain lists too, and never the node of the instance methods', async () => {
    const { plugin } = loaded('1.7', [], ['providerID']);
    const whole = { ...node('a'), providerID: 'p://a', labels: { zone: 'z1' }, systemUUID: 'u-1' };
    expect(plugin.requestFor('instanceMetadata', { node: whole }).node).toEqual(whole);
    const cut = plugin.requestFor('updateLoadBalancer', { clusterName: 'c', service, nodes: [whole] }).nodes;
    expect(cut).toEqual([{ name: '', uid: '', providerID: 'p://a', labels: {}, annotations: {}, addresses: [] }]);
    await plugin.close();
  });

  it('cuts a list it is given ahead (prepareNodes) with its projection; the call that carries it takes that cut', async () => {
    const prepare = vi.spyOn(NodeListProjection.prototype, 'prepare');
    try {
      const { plugin } = loaded('1.7', [], ['name']);
      const nodes = keptList([Object.freeze({ ...node('a'), labels: { zone: 'z1' } })]);
      plugin.prepareNodes(nodes);
      expect(prepare).toHaveBeenCalledTimes(1);
      expect(prepare.mock.calls[0]?.[0]).toBe(nodes);
      const prepared = plugin.requestFor('updateLoadBalancer', { clusterName: 'c', service, nodes }).nodes;
      expect(isKeptList(prepared)).toBe(true);
      expect(prepared.map((n) => n.labels)).toEqual([{}]);
      expect(plugin.requestFor('ensureLoadBalancer', { clusterName: 'c', service, nodes }).nodes).toBe(prepared);
      // A plugin that reads every field takes the list as it is: nothing to do ahead.
      const whole = loaded('1.7', []);
      whole.plugin.prepareNodes(nodes);
      expect(prepare).toHaveBeenCalledTimes(1);
      expect(whole.plugin.requestFor('updateLoadBalancer', { clusterName: 'c', service, nodes }).nodes).toBe(nodes);
      await plugin.close();
      await whole.plugin.close();
    } finally {
      prepare.mockRestore();
    }
  });
});
