// The AWS plugin's batched InstancesV2 calls (ABI 1.5, 1.6) against moto: every node's outcome (answer, or error code and
// message) is what its per-node call answers, for instances running, stopped, terminated and missing, found by
// providerID, by private DNS name and by resource-based name; and the batch costs one DescribeInstances per kind of
// lookup (instance IDs, DNS names) and per 200 values, as moto's own request log shows.
import { beforeAll, describe, expect, it } from 'vitest';
import { PluginAnswerError, type TestPlugin, testNode } from '../../../packages/wasm-ccm/src/testing/index.ts';
import { setInstanceState, type AwsEnv } from '../../../lab/peers/index.ts';
import type { Node } from '../../../host/src/cloudprovider/index.ts';
import { expectedStatus, statusAnswers } from '../../support/status-batch.ts';
import { useAwsPlugin } from './support/plugin.ts';

const CLUSTER = 'aws-batch-test';
let env: AwsEnv;
let plugin: TestPlugin;
let nodes: Node[];

const instance = (i: number) => env.seeded.instances[i]!;
const byId = (i: number, name = `node-${i}`) =>
  testNode({ name, providerID: `aws:///${instance(i).zone}/${instance(i).id}` });

useAwsPlugin(
  { cluster: CLUSTER, instancesPerZone: 3, moto: { recordRequests: true } },
  (started) => ({ env, plugin } = started),
);

beforeAll(async () => {
  await setInstanceState(env.query, instance(1).id, 'StopInstances');
  await setInstanceState(env.query, instance(2).id, 'TerminateInstances');
  nodes = [
    byId(0),
    byId(1),
    byId(2),
    testNode({ name: instance(3).privateDnsName }),
    testNode({ name: instance(1).privateDnsName }),
    testNode({ name: instance(2).privateDnsName }),
    testNode({ name: `${instance(4).id}.ec2.internal` }),
    testNode({ name: 'gone', providerID: 'aws:///us-east-1a/i-0123456789abcdef0' }),
    testNode({ name: 'ip-10-99-99-99.ec2.internal' }),
    testNode({ name: 'foreign', providerID: 'gce://project/zone/node' }),
    { ...byId(5), labels: { 'topology.k8s.aws/zone-id': 'use1-az9' } },
    byId(0, 'node-0-again'),
  ];
}, 60_000);

type Answer = { ok: unknown } | { code: string; message: string };

/** Each node's per-node answer, or its error's code and message (without the "aws.<method>: " the host puts first). */
async function perNode(method: 'instanceExists' | 'instanceShutdown' | 'instanceMetadata'): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const node of nodes) {
    try {
      out.push({ ok: await plugin.call(method, { node }) });
    } catch (err) {
      if (!(err instanceof PluginAnswerError)) throw err;
      out.push({ code: err.code, message: err.detail.replace(`aws.${method}: `, '') });
    }
  }
  return out;
}

function outcomes(results: { ok: unknown; error: { code: string; message: string } }[]): Answer[] {
  return results.map((r) => (r.error.code === '' ? { ok: r.ok } : { code: r.error.code, message: r.error.message }));
}

/** moto's recorded requests since `from`, as their actions. */
function actionsSince(from: number): string[] {
  return env.moto
    .recorded()
    .slice(from)
    .map((r) => new URLSearchParams(r.body).get('Action') ?? r.url);
}

describe('aws plugin: batched InstancesV2', () => {
  it('answers each node as the per-node calls do, in one DescribeInstances per kind of lookup', async () => {
    const single = {
      exists: await perNode('instanceExists'),
      shutdown: await perNode('instanceShutdown'),
      metadata: await perNode('instanceMetadata'),
    };
    expect(single.exists.map((a) => ('ok' in a ? a.ok : a.code))).toEqual([
      { exists: true },
      { exists: true },
      { exists: false },
      { exists: true },
      { exists: true },
      { exists: false },
      { exists: true },
      { exists: false },
      { exists: false },
      'Invalid',
      { exists: true },
      { exists: true },
    ]);
    const from = env.moto.recorded().length;
    const exists = await plugin.call('instanceExistsBatch', { nodes });
    const shutdown = await plugin.call('instanceShutdownBatch', { nodes });
    const metadata = await plugin.call('instanceMetadataBatch', { nodes });
    expect(outcomes(exists.results)).toEqual(single.exists);
    expect(outcomes(shutdown.results)).toEqual(single.shutdown);
    expect(outcomes(metadata.results)).toEqual(single.metadata);
    // Per node, these 12 nodes cost 11 DescribeInstances each method; batched, two (IDs, DNS names).
    expect(actionsSince(from)).toEqual(Array.from({ length: 6 }, () => 'DescribeInstances'));
  });

  it('answers instanceStatusBatch as instanceExists and, where the instance exists, instanceShutdown', async () => {
    const exists = await perNode('instanceExists');
    const shutdown = await perNode('instanceShutdown');
    const from = env.moto.recorded().length;
    const status = await plugin.call('instanceStatusBatch', { nodes });
    const answer = (o: { ok: unknown; error: { code: string; message: string } }): Answer =>
      o.error.code === '' ? { ok: o.ok } : { code: o.error.code, message: o.error.message };
    const existsTrue = (a: Answer): boolean => 'ok' in a && (a.ok as { exists: boolean }).exists;
    const expected = expectedStatus(exists, shutdown, existsTrue, { ok: { shutdown: false } });
    expect(statusAnswers(status.results, answer)).toEqual(expected);
    // The stopped instance (node-1, and by its DNS name) is the one shut down; both lookups in one request each.
    expect(expected.filter(([, s]) => 'ok' in s && (s.ok as { shutdown: boolean }).shutdown)).toHaveLength(2);
    expect(actionsSince(from)).toEqual(['DescribeInstances', 'DescribeInstances']);
  });

  it('asks for 250 nodes by providerID in two DescribeInstances (200 values a filter)', async () => {
    const many = Array.from({ length: 250 }, (_, i) =>
      i < 6 ? byId(i) : testNode({ name: `n-${i}`, providerID: `aws:///us-east-1a/i-${(i + 0x1000).toString(16)}` }),
    );
    const from = env.moto.recorded().length;
    const answer = await plugin.call('instanceExistsBatch', { nodes: many });
    expect(answer.results.map((r) => r.ok.exists)).toEqual(many.map((_, i) => i < 6 && i !== 2));
    expect(actionsSince(from)).toEqual(['DescribeInstances', 'DescribeInstances']);
  });
});
