// The devcloud plugin's batched InstancesV2 calls (ABI 1.5, 1.6) through the real runtime against an embedded devcloud:
// every node's outcome is what its per-node call answers, from one request per kind of lookup (by ids, by names)
// instead of one per node, as devcloud's own request counters show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceMetadataOfEach, type Node } from '../../../host/src/cloudprovider/index.ts';
import type { WasmProvider } from '../../../host/src/plugin/index.ts';
import { expectedStatus, statusAnswers } from '../../support/status-batch.ts';
import { type CloudEnv, devcloudPluginPath, loadDevcloudPlugin, node, startCloud } from './support.ts';

let env: CloudEnv;
let provider: WasmProvider;
let nodes: Node[];

const requests = (): Record<string, number> =>
  Object.fromEntries(Object.entries(env.cloud.inventory().counters).map(([op, c]) => [op, c.total]));

beforeAll(async () => {
  const wasmPath = await devcloudPluginPath();
  env = await startCloud();
  const { cloud } = env;
  const running = cloud.addInstance({ name: 'run-1', zone: 'dc-east-1b' }).id;
  const stopped = cloud.addInstance({ name: 'stop-1' }).id;
  cloud.stopInstance(stopped);
  const gone = cloud.addInstance({ name: 'gone-1' }).id;
  cloud.terminateInstance(gone);
  cloud.addInstance({ name: 'named-1' });
  nodes = [
    node('run-1', `devcloud://${running}`),
    node('stop-1', `devcloud://${stopped}`),
    node('gone-1', `devcloud://${gone}`),
    node('missing', 'devcloud://i-missing'),
    node('named-1'),
    node('other', 'aws:///us-east-1a/i-1'),
  ];
  provider = await loadDevcloudPlugin(wasmPath, env);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await env?.close();
});

/** Each node's answer or error code, through a per-node call. */
async function perNode<T>(call: (n: Node) => Promise<T>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const n of nodes) out.push(await call(n).catch((err: { code: string }) => err.code));
  return out;
}

describe('devcloud plugin: batched InstancesV2', () => {
  it('exports the batched methods, each answering as the per-node calls do, in two requests', async () => {
    const v2 = provider.instancesV2()!;
    expect(v2.instanceMetadataBatch).toBeDefined();
    const single = {
      metadata: await perNode((n) => v2.instanceMetadata(n)),
      exists: await perNode((n) => v2.instanceExists(n)),
      shutdown: await perNode((n) => v2.instanceShutdown(n)),
    };
    expect(single.exists).toEqual([true, true, false, false, true, 'Invalid']);
    env.cloud.resetCounters();
    const metadata = await v2.instanceMetadataBatch!(nodes);
    expect(requests()).toEqual({ getInstancesByIds: 1, getInstancesByNames: 1 });
    const exists = await v2.instanceExistsBatch!(nodes);
    const shutdown = await v2.instanceShutdownBatch!(nodes);
    expect(requests()).toEqual({ getInstancesByIds: 3, getInstancesByNames: 3 });
    const answer = <T>(o: { ok: T; error: { code: string } }): unknown => (o.error.code === '' ? o.ok : o.error.code);
    expect(metadata.map(answer)).toEqual(single.metadata);
    expect(exists.map((o) => (o.error.code === '' ? o.ok.exists : o.error.code))).toEqual(single.exists);
    expect(shutdown.map((o) => (o.error.code === '' ? o.ok.shutdown : o.error.code))).toEqual(single.shutdown);
  });

  it('answers instanceStatusBatch as exists and, where the instance exists, shutdown, in two requests', async () => {
    const v2 = provider.instancesV2()!;
    const exists = await perNode((n) => v2.instanceExists(n));
    const shutdown = await perNode((n) => v2.instanceShutdown(n));
    env.cloud.resetCounters();
    const status = await v2.instanceStatusBatch!(nodes);
    expect(requests()).toEqual({ getInstancesByIds: 1, getInstancesByNames: 1 });
    const answer = (o: { ok: unknown; error: { code: string } }): unknown =>
      o.error.code === '' ? Object.values(o.ok as object)[0] : o.error.code;
    const expected = expectedStatus(exists, shutdown, (a) => a === true, false);
    expect(statusAnswers(status, answer)).toEqual(expected);
    expect(expected.map(([, s]) => s)).toEqual([false, true, false, false, false, false]);
  });

  it('asks for 120 nodes by id in two requests (devcloud takes 100 ids per request)', async () => {
    const many = Array.from({ length: 120 }, (_, i) => env.cloud.addInstance({ name: `many-${i}` }).id);
    env.cloud.resetCounters();
    const results = await instanceMetadataOfEach(
      provider.instancesV2()!,
      many.map((id, i) => node(`many-${i}`, `devcloud://${id}`)),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(requests()).toEqual({ getInstancesByIds: 2 });
  });

  it('fails the nodes of a request devcloud refused, with the per-node error it would have been', async () => {
    env.cloud.setKnobs({ failNext: [{ kind: 'getInstancesByNames', count: 1, status: 503 }] });
    const results = await provider.instancesV2()!.instanceExistsBatch!(nodes);
    expect(results.map((o) => o.error.code)).toEqual(['', '', '', '', 'Internal', 'Invalid']);
  });
});
