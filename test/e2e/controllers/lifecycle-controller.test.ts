// The cloud-node-lifecycle controller against the real apiserver with a recording FakeProvider: each monitor pass
// asks about its NotReady nodes in one instanceStatusBatch call (ABI 1.6), or, for a provider without it, in one
// batched exists call and one batched shutdown call for the nodes that exist; either way a node whose instance is
// gone is deleted with a DeletingNode Event, a shut-down one tainted, one whose check failed left alone.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { CloudNodeLifecycleController } from '../../../host/src/controllers/nodelifecycle/lifecycle-controller.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { eventually, type Harness, startHarness } from '../../support/controller-harness.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';

describe('cloud-node-lifecycle controller', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const cloud = new FakeProvider();
  const created: string[] = [];
  let harness: Harness;

  /**
   * A NotReady node (Ready False, as a kubelet that stopped posting leaves it), created with its status in one write:
   * a node without a Ready condition counts as Unknown, so a pass may act on it before a second write lands.
   */
  async function notReadyNode(name: string): Promise<string> {
    created.push(name);
    const at = new Date();
    const ready = { type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: at };
    await core.createNode({
      body: { metadata: { name }, status: { conditions: [{ ...ready, lastTransitionTime: at }] } },
    });
    return name;
  }

  const exists = async (name: string) => (await core.listNode()).items.some((n) => n.metadata?.name === name);
  const shutdownTainted = async (name: string) =>
    (await core.readNode({ name })).spec?.taints?.some((t) => t.key === SHUTDOWN) === true;

  /** The nodes of `names` each recorded call of `method` asked about. */
  const askedAbout = (method: string, names: string[]): string[][] =>
    cloud.calls
      .filter((c) => c.method === method)
      .map((c) => (c.args[0] as string[]).filter((n) => names.includes(n)))
      .filter((asked) => asked.length > 0);

  beforeAll(async () => {
    cloud.batched = true;
    harness = await startHarness(info, 'cloud-node-lifecycle-controller');
    const controller = new CloudNodeLifecycleController({
      client: harness.client,
      nodes: harness.informers.nodes,
      provider: cloud,
      recorder: harness.recorder,
      logger: silentLogger,
      monitorPeriodMs: 500,
    });
    await harness.run(controller);
  });

  afterEach(() => {
    cloud.statusBatched = true;
    cloud.nodeErrors.clear();
  });

  afterAll(async () => {
    await harness?.stop();
    await Promise.allSettled(created.map((name) => core.deleteNode({ name })));
  });

  async function storm(prefix: string): Promise<string[]> {
    const [gone, off, on, broken] = ['gone', 'off', 'on', 'broken'].map((s) => `${prefix}-${s}`) as [
      string,
      string,
      string,
      string,
    ];
    cloud.exists.set(gone, false);
    cloud.shutdown.set(off, true);
    cloud.shutdown.set(broken, true);
    const names = [gone, off, on, broken];
    // The failed check: an error for broken's node in every call until the test ends (a fresh one after each), set
    // before the node exists: a node is checked from its first pass on.
    const failBroken = () =>
      cloud.nodeErrors.set(broken, { code: 'Internal', message: 'cloud hiccup', retryAfterSeconds: 0 });
    failBroken();
    const refill = setInterval(failBroken, 20);
    try {
      // The gone node last: a pass deletes it, so the pass that first sees it NotReady is the one that sees all four.
      for (const name of [off, on, broken, gone]) await notReadyNode(name);
      await eventually(`${gone} deleted`, async () => !(await exists(gone)), 30_000);
      await eventually(`${off} tainted`, () => shutdownTainted(off), 30_000);
      const passes = cloud.calls.length;
      // Positive sign for "left alone": two further passes have asked about the nodes.
      await eventually('two more passes', () => cloud.calls.length >= passes + 2, 30_000);
    } finally {
      clearInterval(refill);
    }
    expect(await shutdownTainted(on)).toBe(false);
    expect(await shutdownTainted(broken)).toBe(false);
    const events = await core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${gone}` });
    expect(events.items.map((e) => e.reason)).toContain('DeletingNode');
    return names;
  }

  it('asks about all NotReady nodes of a pass in one instanceStatusBatch call', async () => {
    const names = await storm(uniqueName('lc'));
    const status = askedAbout('instance-status-batch', names);
    expect(status.some((asked) => asked.length === names.length)).toBe(true);
    expect(askedAbout('instance-exists-batch', names)).toEqual([]);
    expect(askedAbout('instance-shutdown-batch', names)).toEqual([]);
  });

  it('asks a provider without instanceStatusBatch for exists, then shutdown for the nodes that exist', async () => {
    cloud.statusBatched = false;
    const from = cloud.calls.length;
    const names = await storm(uniqueName('lf'));
    const recent = cloud.calls.slice(from);
    const asked = (method: string) =>
      recent
        .filter((c) => c.method === method)
        .map((c) => (c.args[0] as string[]).filter((n) => names.includes(n)))
        .filter((a) => a.length > 0);
    expect(asked('instance-exists-batch').some((a) => a.length === names.length)).toBe(true);
    // Shutdown only for those that exist and answered: never the gone node, never the failed one.
    const shutdownAsked = asked('instance-shutdown-batch').flat();
    expect(shutdownAsked.length).toBeGreaterThan(0);
    expect(shutdownAsked.filter((n) => n.endsWith('-gone') || n.endsWith('-broken'))).toEqual([]);
    expect(asked('instance-status-batch')).toEqual([]);
  });
});
