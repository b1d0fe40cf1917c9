// One cloud-node-lifecycle pass asks about its NotReady nodes together: one InstanceExists call for all of them, one
// InstanceShutdown call for those that exist; each node's answer is handled as its own call's would be (a gone node
// is deleted with its event, a shut-down one tainted, a failed check only logged).
import { describe, expect, it } from 'vitest';
import type { Node } from '../../../../host/src/abi/index.ts';
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

describe('cloud-node-lifecycle batching', () => {
  it('checks the NotReady nodes of a pass in one exists call and one shutdown call', async () => {
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
    const provider = { instancesV2: () => v2 as InstancesV2 } as Provider;
    const nodes = ['ready', 'gone', 'off', 'on', 'broken'].map((n) => wireNode(n, n === 'ready'));
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
    });
    await ctl.monitorNodes();
    expect(calls).toEqual(['exists gone,off,on,broken', 'shutdown off,on']);
    expect(events).toEqual(['DeletingNode gone']);
    expect(requests).toEqual(['DELETE /api/v1/nodes/gone', 'GET /api/v1/nodes/off', 'PUT /api/v1/nodes/off']);
  });
});
