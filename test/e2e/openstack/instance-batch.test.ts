// The OpenStack plugin's batched InstancesV2 calls (ABI 1.5, 1.6) against the lab OpenStack: every node's outcome (answer,
// or error code and message) is what its per-node call answers, for servers ACTIVE, SHUTOFF, missing and named twice,
// found by providerID and by name; and a batch costs one listing of the project's servers, and for instanceMetadata
// one flavor and one ports request besides, whatever the number of nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNode } from '../../../host/src/conformance/index.ts';
import type { Node } from '../../../host/src/abi/index.ts';
import { loadOpenStackPlugin, type OpenStackPlugin } from '../../../lab/plugins/index.ts';
import { type Estate, keystoneLogin, makeEstate } from './support/estate.ts';
import { LAB_START_TIMEOUT_MS, labOpenStack } from './support/lab.ts';
import { expectedStatus, statusAnswers } from '../../support/status-batch.ts';

let estate: Estate;
let plugin: OpenStackPlugin;
let nodes: Node[];

const id = (name: string) => estate.servers.get(name)!.id;

beforeAll(async () => {
  const stack = await labOpenStack();
  estate = await makeEstate(stack, 'e2e-osbatch', '192.168.93.0/24', ['node-a', 'node-b', 'twin', 'twin'], ['node-c']);
  plugin = await loadOpenStackPlugin({
    cloudConfig: '[Global]\nregion = RegionOne\n',
    clusterName: 'e2e',
    keystone: keystoneLogin(estate.project),
    callTimeoutMs: 100_000,
  });
  nodes = [
    testNode({ name: 'a', providerID: `openstack:///${id('node-a')}` }),
    testNode({ name: 'b', providerID: `openstack://RegionOne/${id('node-b')}` }),
    testNode({ name: 'c', providerID: `openstack:///${id('node-c')}` }),
    testNode({ name: 'node-a' }),
    testNode({ name: 'node-c' }),
    testNode({ name: 'twin' }),
    testNode({ name: 'ghost' }),
    testNode({ name: 'gone', providerID: 'openstack:///00000000-0000-4000-8000-000000000000' }),
    testNode({ name: 'foreign', providerID: 'aws:///us-east-1a/i-0123' }),
    testNode({ name: 'elsewhere', providerID: `openstack://RegionTwo/${id('node-a')}` }),
    testNode({ name: 'a-again', providerID: `openstack:///${id('node-a')}` }),
  ];
}, LAB_START_TIMEOUT_MS);

afterAll(async () => {
  await plugin?.close();
}, 120_000);

type Answer = { ok: unknown } | { code: string; message: string };
type Method = 'instanceExists' | 'instanceShutdown' | 'instanceMetadata';

/** Each node's per-node answer, or its error's code and message (without the "openstack.<method>: " the host puts first). */
async function perNode(method: Method): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const node of nodes) {
    const outcome = await plugin.answer(method, { node });
    if (outcome.kind === 'violation') throw new Error(`${method}: ${outcome.problem}`);
    const answer: Answer =
      outcome.kind === 'ok'
        ? { ok: outcome.value }
        : { code: outcome.error.code, message: outcome.error.message.replace(`openstack.${method}: `, '') };
    out.push(answer);
  }
  return out;
}

function outcomes(results: { ok: unknown; error: { code: string; message: string } }[]): Answer[] {
  return results.map((r) => (r.error.code === '' ? { ok: r.ok } : { code: r.error.code, message: r.error.message }));
}

/** The plugin's requests since `from`, as "<METHOD> <path>" without the query. */
function requestsSince(from: number): string[] {
  return plugin.requests.slice(from).map((r) => {
    const [method, url] = r.split(' ');
    return `${method} ${new URL(url!).pathname.replace(/^.*(\/servers\/detail|\/ports|\/flavors\/).*$/, '$1')}`;
  });
}

describe('openstack plugin: batched InstancesV2', () => {
  it('answers each node as the per-node calls do, from a few Nova and Neutron requests', async () => {
    const single = {
      exists: await perNode('instanceExists'),
      shutdown: await perNode('instanceShutdown'),
      metadata: await perNode('instanceMetadata'),
    };
    expect(single.exists.map((a) => ('ok' in a ? a.ok : a.code))).toEqual([
      { exists: true },
      { exists: true },
      { exists: true },
      { exists: true },
      { exists: true },
      'Internal',
      { exists: false },
      { exists: false },
      'Invalid',
      'Invalid',
      { exists: true },
    ]);
    expect(single.shutdown.map((a) => ('ok' in a ? a.ok : a.code)).slice(0, 5)).toEqual([
      { shutdown: false },
      { shutdown: false },
      { shutdown: true },
      { shutdown: false },
      { shutdown: true },
    ]);
    let from = plugin.requests.length;
    expect(outcomes((await plugin.call('instanceExistsBatch', { nodes })).results)).toEqual(single.exists);
    expect(outcomes((await plugin.call('instanceShutdownBatch', { nodes })).results)).toEqual(single.shutdown);
    expect(requestsSince(from)).toEqual(['GET /servers/detail', 'GET /servers/detail']);
    from = plugin.requests.length;
    expect(outcomes((await plugin.call('instanceMetadataBatch', { nodes })).results)).toEqual(single.metadata);
    expect(requestsSince(from)).toEqual(['GET /servers/detail', 'GET /ports', 'GET /flavors/']);
  });

  it('answers instanceStatusBatch as instanceExists and, where the server exists, instanceShutdown', async () => {
    const exists = await perNode('instanceExists');
    const shutdown = await perNode('instanceShutdown');
    const from = plugin.requests.length;
    const status = await plugin.call('instanceStatusBatch', { nodes });
    const answer = (o: { ok: unknown; error: { code: string; message: string } }): Answer =>
      o.error.code === '' ? { ok: o.ok } : { code: o.error.code, message: o.error.message };
    const existsTrue = (a: Answer): boolean => 'ok' in a && (a.ok as { exists: boolean }).exists;
    const expected = expectedStatus(exists, shutdown, existsTrue, { ok: { shutdown: false } });
    expect(statusAnswers(status.results, answer)).toEqual(expected);
    // node-c (SHUTOFF) by providerID and by name.
    expect(expected.filter(([, s]) => 'ok' in s && (s.ok as { shutdown: boolean }).shutdown)).toHaveLength(2);
    expect(requestsSince(from)).toEqual(['GET /servers/detail']);
  });
});
