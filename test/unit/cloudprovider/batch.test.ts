// The batched instance calls (ABI 1.5) as the controllers get them: one call when the provider has the batched
// method, the per-node method for each node when it does not, and always one result per node in order, holding that
// node's value or its own error.
import { describe, expect, it } from 'vitest';
import type { InstanceMetadata, Node, NodeError } from '../../../host/src/abi/index.ts';
import {
  BatchCancelledError,
  InstanceNotFoundError,
  InternalError,
  type InstancesV2,
  instanceExistsOfEach,
  instanceMetadataOfEach,
  instanceShutdownOfEach,
  NotImplementedError,
  RetryError,
  TimeoutError,
} from '../../../host/src/cloudprovider/index.ts';

const node = (name: string): Node => ({
  name,
  uid: `uid-${name}`,
  providerID: `dc://${name}`,
  labels: {},
  annotations: {},
  addresses: [],
});
const NODES = ['a', 'b', 'c'].map(node);
const NO_ERROR: NodeError = { code: '', message: '', retryAfterSeconds: 0 };
const meta = (name: string): InstanceMetadata => ({
  providerID: `dc://${name}`,
  instanceType: 't',
  nodeAddresses: [],
  zone: 'z',
  region: 'r',
  additionalLabels: {},
});

/** InstancesV2 whose per-node methods record their calls; the single-node answers fail for node "b". */
function perNode(calls: string[]): InstancesV2 {
  return {
    instanceExists: async (n) => {
      calls.push(`exists ${n.name}`);
      if (n.name === 'b') throw new InstanceNotFoundError('gone');
      return n.name !== 'c';
    },
    instanceShutdown: async (n) => {
      calls.push(`shutdown ${n.name}`);
      return n.name === 'a';
    },
    instanceMetadata: async (n) => {
      calls.push(`metadata ${n.name}`);
      if (n.name === 'b') throw new TimeoutError('slow');
      return meta(n.name);
    },
  };
}

describe('batched instance calls', () => {
  it('call the per-node method for each node, in order, when the provider has no batched one', async () => {
    const calls: string[] = [];
    const results = await instanceMetadataOfEach(perNode(calls), NODES);
    expect(calls).toEqual(['metadata a', 'metadata b', 'metadata c']);
    expect(results[0]).toEqual({ ok: true, value: meta('a') });
    expect(results[1]).toMatchObject({ ok: false, error: expect.any(TimeoutError) });
    expect(results[2]).toEqual({ ok: true, value: meta('c') });
    const exists = await instanceExistsOfEach(perNode(calls), NODES);
    expect(exists.map((r) => (r.ok ? r.value : r.error.name))).toEqual([true, 'InstanceNotFoundError', false]);
  });

  it('make one call with every node when the provider has the batched method, each outcome its node', async () => {
    const calls: string[] = [];
    const batches: Node[][] = [];
    const v2: InstancesV2 = {
      ...perNode(calls),
      instanceMetadataBatch: async (nodes) => {
        batches.push(nodes);
        return nodes.map((n) =>
          n.name === 'b'
            ? { ok: meta(''), error: { code: 'Retry', message: 'busy', retryAfterSeconds: 7 } }
            : n.name === 'c'
              ? { ok: meta(''), error: { code: 'InstanceNotFound', message: 'no c', retryAfterSeconds: 0 } }
              : { ok: meta(n.name), error: NO_ERROR },
        );
      },
    };
    const results = await instanceMetadataOfEach(v2, NODES);
    expect(calls).toEqual([]);
    expect(batches.map((b) => b.map((n) => n.name))).toEqual([['a', 'b', 'c']]);
    expect(results[0]).toEqual({ ok: true, value: meta('a') });
    const retry = results[1]!.ok ? undefined : results[1]!.error;
    expect(retry).toBeInstanceOf(RetryError);
    expect((retry as RetryError).retryAfterSeconds).toBe(7);
    expect(results[2]!.ok ? undefined : results[2]!.error).toBeInstanceOf(InstanceNotFoundError);
  });

  it('unwrap exists and shutdown answers', async () => {
    const v2: InstancesV2 = {
      ...perNode([]),
      instanceExistsBatch: async (nodes) => nodes.map((n) => ({ ok: { exists: n.name === 'a' }, error: NO_ERROR })),
      instanceShutdownBatch: async (nodes) => nodes.map((n) => ({ ok: { shutdown: n.name !== 'a' }, error: NO_ERROR })),
    };
    expect((await instanceExistsOfEach(v2, NODES)).map((r) => r.ok && r.value)).toEqual([true, false, false]);
    expect((await instanceShutdownOfEach(v2, NODES)).map((r) => r.ok && r.value)).toEqual([false, true, true]);
  });

  it('fall back per node when the batched call answers NotImplemented (a swap to a plugin without it)', async () => {
    const calls: string[] = [];
    const v2: InstancesV2 = {
      ...perNode(calls),
      instanceShutdownBatch: () => Promise.reject(new NotImplementedError('instanceShutdownBatch is not exported')),
    };
    const results = await instanceShutdownOfEach(v2, NODES);
    expect(calls).toEqual(['shutdown a', 'shutdown b', 'shutdown c']);
    expect(results.map((r) => r.ok && r.value)).toEqual([true, false, false]);
  });

  it('fail every node with the error of a failed batched call, or of an answer of the wrong length', async () => {
    const failing: InstancesV2 = { ...perNode([]), instanceExistsBatch: () => Promise.reject(new TimeoutError('t')) };
    const failed = await instanceExistsOfEach(failing, NODES);
    expect(failed.map((r) => !r.ok && r.error.name)).toEqual(['TimeoutError', 'TimeoutError', 'TimeoutError']);
    const short: InstancesV2 = {
      ...perNode([]),
      instanceExistsBatch: async () => [{ ok: { exists: true }, error: NO_ERROR }],
    };
    const cut = await instanceExistsOfEach(short, NODES);
    expect(cut.every((r) => !r.ok && r.error instanceof InternalError)).toBe(true);
    expect(cut[0]!.ok ? '' : cut[0]!.error.message).toContain('answered 1 results for 3 nodes');
  });

  it('stop asking once the signal aborts: the nodes not asked about fail with BatchCancelledError', async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    const v2 = perNode(calls);
    const aborting: InstancesV2 = {
      ...v2,
      instanceMetadata: async (n) => {
        controller.abort();
        return v2.instanceMetadata(n);
      },
    };
    const results = await instanceMetadataOfEach(aborting, NODES, controller.signal);
    expect(calls).toEqual(['metadata a']);
    expect(results[0]).toEqual({ ok: true, value: meta('a') });
    expect(results.slice(1).every((r) => !r.ok && r.error instanceof BatchCancelledError)).toBe(true);
    expect(await instanceMetadataOfEach(v2, [], controller.signal)).toEqual([]);
  });
});
