// One cloud-node-lifecycle pass asks about its NotReady nodes together: one instanceStatusBatch call for all of them
// (ABI 1.6), else one InstanceExists call for all and one InstanceShutdown call for those that exist; each node's
// answer is handled as its own call's would be (a gone node is deleted with its event, a shut-down one tainted, a
// failed check only logged).
import { describe, expect, it } from 'vitest';
import type { Node, NodeError } from '../../../../host/src/abi/index.ts';
import type { InstancesV2, Provider } from '../../../../host/src/cloudprovider/index.ts';
import type { WireNode } from '../../../../host/src/controllers/framework/wire-objects.ts';
import {
  CloudNodeLifecycleController,
  type CloudNodeLifecycleControllerOptions,
} from '../../../../host/src/controllers/nodelifecycle/lifecycle-controller.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';

const ok = { code: '' as const, message: '', retryAfterSeconds: 0 };

const wireNode = (name: string, ready: boolean): WireNode => ({
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

function controller(v2: Partial<InstancesV2>, nodes: WireNode[], batchSize?: number) {
  const provider = { instancesV2: () => v2 as InstancesV2 } as Provider;
  const requests: string[] = [];
  const events: string[] = [];
  const ctl = new CloudNodeLifecycleController({
    client: {
      request: async (r: { method?: string; path: string; body?: WireNode }) => {
        requests.push(`${r.method ?? 'GET'} ${r.path}`);
        return r.body ?? {};
      },
    } as unknown as CloudNodeLifecycleControllerOptions['client'],
    nodes: { cache: { list: () => nodes } } as unknown as CloudNodeLifecycleControllerOptions['nodes'],
    provider,
    recorder: {
      recordEvent: (o: WireNode, _type: string, reason: string) => events.push(`${reason} ${o.metadata?.name}`),
    } as unknown as CloudNodeLifecycleControllerOptions['recorder'],
    logger: silentLogger,
    monitorPeriodMs: 5_000,
    ...(batchSize === undefined ? {} : { batchSize }),
  });
  return { ctl, requests, events };
}

const failed = (code: NodeError['code']): NodeError => ({ code, message: 'x', retryAfterSeconds: 0 });

/** instanceStatusBatch answering "gone" absent, "off" shut down, "lost"/"odd" with exists/shutdown errors. */
function statusBatch(calls: number[]): Partial<InstancesV2> {
  const fail = () => Promise.reject(new Error('the lifecycle controller uses instanceStatusBatch'));
  return {
    instanceExistsBatch: fail,
    instanceShutdownBatch: fail,
    instanceStatusBatch: async (nodes: Node[]) => {
      calls.push(nodes.length);
      return nodes.map((n) => ({
        exists: { ok: { exists: n.name !== 'gone' }, error: n.name === 'lost' ? failed('Internal') : ok },
        shutdown: {
          ok: { shutdown: n.name === 'off' || n.name === 'odd' },
          error: n.name === 'odd' ? failed('Retry') : n.name === 'mute' ? failed('NotImplemented') : ok,
        },
      }));
    },
  };
}

describe('cloud-node-lifecycle batching', () => {
  it('asks about every NotReady node of a pass in one instanceStatusBatch call', async () => {
    const calls: number[] = [];
    const names = ['ready', 'gone', 'off', 'on', 'lost', 'odd', 'mute'];
    const nodes = names.map((n) => wireNode(n, n === 'ready'));
    const { ctl, requests, events } = controller(statusBatch(calls), nodes);
    await ctl.monitorNodes();
    expect(calls).toEqual([6]);
    // A failed check (lost, odd) does nothing; a provider that cannot tell (mute) means "not shut down".
    expect(events).toEqual(['DeletingNode gone']);
    expect(requests).toEqual(['DELETE /api/v1/nodes/gone', 'GET /api/v1/nodes/off', 'PUT /api/v1/nodes/off']);
  });

  it('asks about the 100 NotReady nodes of a storm in one call, and splits only beyond the batch size', async () => {
    const calls: number[] = [];
    const storm = Array.from({ length: 100 }, (_, i) => wireNode(`n${i}`, false));
    await controller(statusBatch(calls), storm).ctl.monitorNodes();
    expect(calls).toEqual([100]);
    const big = Array.from({ length: 1_100 }, (_, i) => wireNode(`n${i}`, false));
    await controller(statusBatch(calls), big).ctl.monitorNodes();
    await controller(statusBatch(calls), storm, 40).ctl.monitorNodes();
    expect(calls).toEqual([100, 500, 500, 100, 40, 40, 20]);
  });

  it('without instanceStatusBatch, checks them in one exists call and one shutdown call', async () => {
    const calls: string[] = [];
    const v2: Partial<InstancesV2> = {
      instanceExistsBatch: async (nodes: Node[]) => {
        calls.push(`exists ${nodes.map((n) => n.name).join(',')}`);
        return nodes.map((n) =>
          n.name === 'broken'
            ? { ok: { exists: false }, error: { code: 'Internal' as const, message: 'x', retryAfterSeconds: 0 } }
            : { ok: { exists: n.name !== 'gone' }, error: ok },
        );
      },
      instanceShutdownBatch: async (nodes: Node[]) => {
        calls.push(`shutdown ${nodes.map((n) => n.name).join(',')}`);
        return nodes.map((n) => ({ ok: { shutdown: n.name === 'off' }, error: ok }));
      },
    };
    const nodes = ['ready', 'gone', 'off', 'on', 'broken'].map((n) => wireNode(n, n === 'ready'));
    const { ctl, requests, events } = controller(v2, nodes);
    await ctl.monitorNodes();
    expect(calls).toEqual(['exists gone,off,on,broken', 'shutdown off,on']);
    expect(events).toEqual(['DeletingNode gone']);
    expect(requests).toEqual(['DELETE /api/v1/nodes/gone', 'GET /api/v1/nodes/off', 'PUT /api/v1/nodes/off']);
  });
});

describe('cloud-node-lifecycle stopped during a pass', () => {
  it('deletes and taints nothing on the answers of a call that outlived the stop', async () => {
    const stop = new AbortController();
    const calls: number[] = [];
    const v2: Partial<InstancesV2> = {
      instanceStatusBatch: async (nodes: Node[]) => {
        calls.push(nodes.length);
        stop.abort(); // leadership lost while the cloud answered
        return nodes.map(() => ({
          exists: { ok: { exists: false }, error: ok },
          shutdown: { ok: { shutdown: false }, error: ok },
        }));
      },
    };
    const { ctl, requests, events } = controller(v2, [wireNode('a', false), wireNode('b', false)], 1);
    await ctl.run(stop.signal);
    // The positive sign: the first batch was asked; then neither its answer nor the next batch acted.
    expect(calls).toEqual([1]);
    expect(requests).toEqual([]);
    expect(events).toEqual([]);
  });
});
