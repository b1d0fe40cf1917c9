// The cloud-node controller asks for the InstanceMetadata of many nodes at once: the uninitialized nodes a worker took
// in one turn in one call, and the periodic refresh in batches, --concurrent-node-status-updates batches at a time.
// A node's failed answer fails that node's sync alone.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { InstanceMetadata, Node } from '../../../../host/src/abi/index.ts';
import { InstanceNotFoundError, type InstancesV2, type Provider } from '../../../../host/src/cloudprovider/index.ts';
import {
  CloudNodeController,
  type CloudNodeControllerOptions,
} from '../../../../host/src/controllers/node/node-controller.ts';
import type { WireNode } from '../../../../host/src/controllers/framework/wire-objects.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

const wireNode = (name: string, tainted: boolean): WireNode => ({
  metadata: { name },
  spec: tainted ? { taints: [TAINT] } : {},
  status: {},
});

const meta = (name: string): InstanceMetadata => ({
  providerID: `dc://${name}`,
  instanceType: 't',
  nodeAddresses: [],
  zone: 'z',
  region: 'r',
  additionalLabels: {},
});

interface Recorder {
  batches: string[][];
  single: string[];
  most: number;
}

function batchingProvider(rec: Recorder, failing = new Set<string>()): Provider {
  let inFlight = 0;
  const v2: Partial<InstancesV2> = {
    instanceMetadata: async (node: Node) => {
      rec.single.push(node.name);
      return meta(node.name);
    },
    instanceMetadataBatch: async (nodes: Node[]) => {
      rec.batches.push(nodes.map((n) => n.name));
      rec.most = Math.max(rec.most, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      return nodes.map((n) =>
        failing.has(n.name)
          ? { ok: meta(''), error: { code: 'InstanceNotFound' as const, message: 'gone', retryAfterSeconds: 0 } }
          : { ok: meta(n.name), error: { code: '' as const, message: '', retryAfterSeconds: 0 } },
      );
    },
  };
  return { instancesV2: () => v2 as InstancesV2, instances: () => undefined, zones: () => undefined } as Provider;
}

function controller(provider: Provider, nodes: WireNode[], statusUpdateWorkers = 1): CloudNodeController {
  const byName = new Map(nodes.map((n) => [n.metadata!.name!, n]));
  return new CloudNodeController({
    client: { patch: async () => undefined } as unknown as CloudNodeControllerOptions['client'],
    nodes: {
      cache: { list: () => nodes, get: (name: string) => byName.get(name) },
      addEventHandler: () => undefined,
    } as unknown as CloudNodeControllerOptions['nodes'],
    provider,
    recorder: { recordEvent: () => undefined } as unknown as CloudNodeControllerOptions['recorder'],
    logger: silentLogger,
    registry: new Registry(),
    workers: 1,
    statusUpdateWorkers,
    statusUpdateFrequencyMs: 300_000,
    batchSize: 50,
  });
}

describe('cloud-node controller batching', () => {
  it("asks about the uninitialized nodes of a worker's turn in one call; a failed node fails its own sync", async () => {
    const rec: Recorder = { batches: [], single: [], most: 0 };
    const nodes = [wireNode('a', true), wireNode('b', false), wireNode('c', true), wireNode('d', true)];
    const ctl = controller(batchingProvider(rec, new Set(['c'])), nodes);
    await ctl.prefetchMetadata(['a', 'b', 'c', 'd']);
    expect(rec.batches).toEqual([['a', 'c', 'd']]);
    await expect(ctl.syncNode('c')).rejects.toBeInstanceOf(InstanceNotFoundError);
    expect(rec.single).toEqual([]);
    // Taken once: a later sync of c (its retry) asks the cloud again, alone.
    await expect(ctl.syncNode('c')).rejects.toThrow();
    expect(rec.single).toEqual(['c']);
  });

  it('leaves a lone uninitialized node to its own sync', async () => {
    const rec: Recorder = { batches: [], single: [], most: 0 };
    const ctl = controller(batchingProvider(rec), [wireNode('a', true), wireNode('b', false)]);
    await ctl.prefetchMetadata(['a', 'b']);
    expect(rec.batches).toEqual([]);
  });

  it('refreshes every initialized node in batches, at most --concurrent-node-status-updates at once', async () => {
    const rec: Recorder = { batches: [], single: [], most: 0 };
    const nodes = Array.from({ length: 230 }, (_, i) => wireNode(`n${i}`, i >= 220));
    await controller(batchingProvider(rec), nodes, 2).updateNodeStatus();
    expect(rec.batches.map((b) => b.length)).toEqual([50, 50, 50, 50, 20]);
    expect(rec.batches.flat().sort()).toEqual(
      nodes
        .slice(0, 220)
        .map((n) => n.metadata!.name!)
        .sort(),
    );
    expect(rec.most).toBe(2);
    expect(rec.single).toEqual([]);
  });

  it('spreads a few nodes over the status workers', async () => {
    const rec: Recorder = { batches: [], single: [], most: 0 };
    const nodes = Array.from({ length: 12 }, (_, i) => wireNode(`n${i}`, false));
    await controller(batchingProvider(rec), nodes, 4).updateNodeStatus();
    expect(rec.batches.map((b) => b.length)).toEqual([3, 3, 3, 3]);
    expect(rec.most).toBe(4);
  });
});
