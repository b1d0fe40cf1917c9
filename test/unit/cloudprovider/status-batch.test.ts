// The combined batch of ABI 1.6 (instanceStatusBatch) as cloud-node-lifecycle gets it: one call when the provider has
// it; otherwise the two batched calls it combines (exists for every node, shutdown only for those that exist), or the
// per-node methods; each node's exists and shutdown results hold its answer or its own error.
import { describe, expect, it } from 'vitest';
import type { InstanceStatusOutcome, Node, NodeError } from '../../../host/src/abi/index.ts';
import {
  BatchCancelledError,
  InstanceNotFoundError,
  type InstanceStatus,
  type InstancesV2,
  instanceStatusOfEach,
  InternalError,
  NotImplementedError,
  RetryError,
} from '../../../host/src/cloudprovider/index.ts';

const node = (name: string): Node => ({
  name,
  uid: `uid-${name}`,
  providerID: `dc://${name}`,
  labels: {},
  annotations: {},
  addresses: [],
});
// "on" runs, "off" is shut down, "gone" does not exist, "bad" fails its exists check, "odd" its shutdown check.
const NODES = ['on', 'off', 'gone', 'bad', 'odd'].map(node);
const NO_ERROR: NodeError = { code: '', message: '', retryAfterSeconds: 0 };
const failed = (code: NodeError['code'], message: string): NodeError => ({ code, message, retryAfterSeconds: 0 });

/** InstancesV2 with the per-node methods and the 1.5 batches over them, each call recorded. */
function withBatches(calls: string[]): InstancesV2 {
  const exists = (n: Node): boolean => {
    if (n.name === 'bad') throw new InstanceNotFoundError('no such id');
    return n.name !== 'gone';
  };
  const shutdown = (n: Node): boolean => {
    if (n.name === 'odd') throw new NotImplementedError('cannot tell');
    return n.name === 'off';
  };
  const outcome = <T>(f: () => T): { ok: T; error: NodeError } | { ok: undefined; error: NodeError } => {
    try {
      return { ok: f(), error: NO_ERROR };
    } catch (err) {
      const e = err as InstanceNotFoundError | NotImplementedError;
      return { ok: undefined, error: failed(e.code, e.message) };
    }
  };
  return {
    instanceExists: async (n) => {
      calls.push(`exists ${n.name}`);
      return exists(n);
    },
    instanceShutdown: async (n) => {
      calls.push(`shutdown ${n.name}`);
      return shutdown(n);
    },
    instanceMetadata: () => Promise.reject(new Error('not asked')),
    instanceExistsBatch: async (nodes) => {
      calls.push(`exists-batch ${nodes.map((n) => n.name).join(',')}`);
      return nodes.map((n) => {
        const o = outcome(() => exists(n));
        return { ok: { exists: o.ok ?? false }, error: o.error };
      });
    },
    instanceShutdownBatch: async (nodes) => {
      calls.push(`shutdown-batch ${nodes.map((n) => n.name).join(',')}`);
      return nodes.map((n) => {
        const o = outcome(() => shutdown(n));
        return { ok: { shutdown: o.ok ?? false }, error: o.error };
      });
    },
  };
}

/** What each node's status says, compactly: exists=<value|code>, shutdown=<value|code>. */
const summary = (status: InstanceStatus[]): string[] =>
  status.map(({ exists, shutdown }, i) => {
    const text = (r: InstanceStatus['exists']): string =>
      r.ok ? String(r.value) : ((r.error as { code?: string }).code ?? r.error.name);
    return `${NODES[i]!.name} exists=${text(exists)} shutdown=${text(shutdown)}`;
  });

const EXPECTED = [
  'on exists=true shutdown=false',
  'off exists=true shutdown=true',
  'gone exists=false shutdown=false',
  'bad exists=InstanceNotFound shutdown=false',
  'odd exists=true shutdown=NotImplemented',
];

describe('instanceStatusOfEach', () => {
  it('answers from one instanceStatusBatch call when the provider has it', async () => {
    const calls: string[] = [];
    const v2: InstancesV2 = {
      ...withBatches(calls),
      instanceStatusBatch: async (nodes) => {
        calls.push(`status-batch ${nodes.map((n) => n.name).join(',')}`);
        return nodes.map((n): InstanceStatusOutcome => {
          const exists = n.name === 'bad' ? failed('InstanceNotFound', 'no such id') : NO_ERROR;
          const shutdown = n.name === 'odd' ? failed('NotImplemented', 'cannot tell') : NO_ERROR;
          return {
            exists: { ok: { exists: n.name !== 'gone' && n.name !== 'bad' }, error: exists },
            // A shutdown answer for a node whose exists is not true is not read: "gone" says true here.
            shutdown: { ok: { shutdown: n.name === 'off' || n.name === 'gone' }, error: shutdown },
          };
        });
      },
    };
    const status = await instanceStatusOfEach(v2, NODES);
    expect(calls).toEqual(['status-batch on,off,gone,bad,odd']);
    expect(summary(status)).toEqual(EXPECTED);
    const bad = status[3]!.exists;
    expect(!bad.ok && bad.error).toBeInstanceOf(InstanceNotFoundError);
    expect(!bad.ok && bad.error.message).toBe('no such id');
  });

  it('falls back to exists for every node and shutdown for those that exist, with the same answers', async () => {
    const calls: string[] = [];
    const status = await instanceStatusOfEach(withBatches(calls), NODES);
    expect(calls).toEqual(['exists-batch on,off,gone,bad,odd', 'shutdown-batch on,off,odd']);
    expect(summary(status)).toEqual(EXPECTED);
  });

  it('falls back to the per-node methods for a provider without any batch', async () => {
    const calls: string[] = [];
    const { instanceExists, instanceShutdown, instanceMetadata } = withBatches(calls);
    const status = await instanceStatusOfEach({ instanceExists, instanceShutdown, instanceMetadata }, NODES);
    expect(calls).toEqual([
      ...NODES.map((n) => `exists ${n.name}`),
      ...['on', 'off', 'odd'].map((n) => `shutdown ${n}`),
    ]);
    expect(summary(status)).toEqual(EXPECTED);
  });

  it('falls back when the provider current at the call answers NotImplemented (a hot swap)', async () => {
    const calls: string[] = [];
    const v2: InstancesV2 = {
      ...withBatches(calls),
      instanceStatusBatch: () => Promise.reject(new NotImplementedError('instanceStatusBatch is not exported')),
    };
    expect(summary(await instanceStatusOfEach(v2, NODES))).toEqual(EXPECTED);
    expect(calls).toEqual(['exists-batch on,off,gone,bad,odd', 'shutdown-batch on,off,odd']);
  });

  it("fails every node's exists check when the whole call fails, asking nothing else", async () => {
    const calls: string[] = [];
    const v2: InstancesV2 = {
      ...withBatches(calls),
      instanceStatusBatch: () => Promise.reject(new RetryError('throttled', 30)),
    };
    const status = await instanceStatusOfEach(v2, NODES);
    expect(calls).toEqual([]);
    for (const { exists, shutdown } of status) {
      expect(!exists.ok && exists.error).toBeInstanceOf(RetryError);
      expect(shutdown).toEqual({ ok: true, value: false });
    }
  });

  it('fails every node as Internal when the answer has another length than the nodes', async () => {
    const v2: InstancesV2 = { ...withBatches([]), instanceStatusBatch: async () => [] };
    const status = await instanceStatusOfEach(v2, NODES);
    const first = status[0]!.exists;
    expect(!first.ok && first.error).toBeInstanceOf(InternalError);
    expect(!first.ok && first.error.message).toBe('the batched instanceStatus answered 0 results for 5 nodes');
    expect(status.every((s) => !s.exists.ok)).toBe(true);
  });

  it('asks nothing once stopped: every node cancelled', async () => {
    const calls: string[] = [];
    const v2: InstancesV2 = { ...withBatches(calls), instanceStatusBatch: () => Promise.reject(new Error('asked')) };
    const stopped = AbortSignal.abort();
    const status = await instanceStatusOfEach(v2, NODES, stopped);
    expect(calls).toEqual([]);
    for (const { exists } of status) expect(!exists.ok && exists.error).toBeInstanceOf(BatchCancelledError);
    expect(await instanceStatusOfEach(v2, [])).toEqual([]);
  });
});
