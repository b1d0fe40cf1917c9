// The node controllers end to end against devcloud: wasm-ccm as a real process (manifest RBAC) running the devcloud
// plugin, whose HTTP calls go through the host's broker with the brokered token. Initialization, the lifecycle
// (terminated -> Node deleted, stopped -> shutdown taint, started -> taint removed) and convergence after cloud faults.
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  type CCMProcess,
  deleteNodes,
  hasTaint,
  kubeletNode,
  nodeEvents,
  readyCondition,
  setReady,
  SHUTDOWN_TAINT_KEY,
  startDevcloudCCM,
  UNINITIALIZED_TAINT,
} from '../../../lab/ccm/index.ts';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';

describe('node controllers against devcloud (wasm-ccm process, devcloud plugin)', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const created: string[] = [];
  let cloud: Devcloud;
  let ccm: CCMProcess;

  function nodeName(prefix: string): string {
    const name = uniqueName(prefix);
    created.push(name);
    return name;
  }

  async function initialized(name: string, timeoutMs = 20_000): Promise<V1Node> {
    return eventually(
      `${name} initialized`,
      async () => {
        const n = await core.readNode({ name });
        return hasTaint(n, UNINITIALIZED_TAINT.key) ? undefined : n;
      },
      timeoutMs,
    );
  }

  /**
   * The positive sign that the lifecycle controller has made a whole monitor pass since this call: two marker Nodes,
   * NotReady and of no instance, deleted one after the other. The pass that deletes the first began after this call
   * (its list of nodes holds the marker); the pass that deletes the second began after that one had ended (its list
   * holds the second marker, created once the first was gone), and passes never overlap.
   */
  async function wholeMonitorPass(tag: string): Promise<void> {
    for (const round of [1, 2]) {
      const marker = nodeName(`${tag}-pass${round}`);
      await core.createNode({
        body: { metadata: { name: marker }, status: { conditions: [readyCondition(false, new Date())] } },
      });
      await eventually(`marker ${marker} deleted`, () =>
        core.readNode({ name: marker }).then(
          () => undefined,
          (err: { code?: number }) => err.code === 404 || undefined,
        ),
      );
    }
  }

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    cloud = await startDevcloud();
    ccm = startDevcloudCCM(info, token, cloud, 'nodes', [
      '--controllers=cloud-node,cloud-node-lifecycle',
      '--node-monitor-period=1s',
    ]);
    await ccm.ready();
  });

  afterEach(() => {
    cloud.resetKnobs();
  });

  afterAll(async () => {
    const code = await ccm?.stop();
    await deleteNodes(admin, created);
    await cloud?.stop();
    expect(code).toBe(0);
  });

  it('initializes a kubelet-registered node with exactly what upstream sets, and records Synced', async () => {
    const name = nodeName('dc-init');
    const inst = cloud.addInstance({
      name,
      type: 'dc.large',
      zone: 'dc-east-1b',
      // "Bad Key" is not a valid label name: the plugin must leave it out rather than fail the node.
      labels: { pool: 'web', 'Bad Key': 'x' },
    });
    const registered = await core.createNode({ body: kubeletNode(name, { ready: true }) });

    const node = await initialized(name);
    expect(node.spec?.providerID).toBe(`devcloud://${inst.id}`);
    // Only the cloud taint goes; taints others set (the apiserver's TaintNodesByCondition adds not-ready) stay.
    const others = (registered.spec?.taints ?? []).filter((t) => t.key !== UNINITIALIZED_TAINT.key);
    expect(registered.spec?.taints).toContainEqual(UNINITIALIZED_TAINT);
    expect(node.spec?.taints ?? []).toEqual(others);
    expect(node.metadata?.labels).toEqual({
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': 'dc.large',
      'beta.kubernetes.io/instance-type': 'dc.large',
      'topology.kubernetes.io/zone': 'dc-east-1b',
      'failure-domain.beta.kubernetes.io/zone': 'dc-east-1b',
      'topology.kubernetes.io/region': 'dc-east-1',
      'failure-domain.beta.kubernetes.io/region': 'dc-east-1',
      'devcloud.example/pool': 'web',
    });
    // The cloud's addresses replace the kubelet's (the cloud names the Hostname too); order is not compared.
    const addresses = await eventually('cloud addresses', async () => {
      const n = await core.readNode({ name });
      return (n.status?.addresses?.length ?? 0) === inst.addresses.length ? n.status?.addresses : undefined;
    });
    expect([...(addresses ?? [])].sort(byTypeThenAddress)).toEqual([...inst.addresses].sort(byTypeThenAddress));
    expect(inst.addresses.map((a) => a.type).sort()).toEqual(['Hostname', 'InternalDNS', 'InternalIP']);

    const [synced] = await eventually('Synced event', async () => {
      const e = await nodeEvents(admin, name, 'Synced');
      return e.length > 0 ? e : undefined;
    });
    expect(synced).toMatchObject({
      type: 'Normal',
      message: 'Node synced successfully',
      source: { component: 'cloud-node-controller' },
      involvedObject: { kind: 'Node', name },
    });
    // The plugin asked devcloud by name (no providerID yet), with the token the host brokered.
    const counters = cloud.inventory().counters;
    expect(counters.getInstanceByName?.byStatus['200']).toBeGreaterThanOrEqual(1);
    expect(counters.getInstanceByName?.byStatus['401']).toBeUndefined();
  });

  it('deletes the Node of a terminated instance once it is NotReady, with a DeletingNode event', async () => {
    const name = nodeName('dc-term');
    const inst = cloud.addInstance({ name });
    await core.createNode({ body: kubeletNode(name, { ready: true }) });
    await initialized(name);

    cloud.terminateInstance(inst.id);
    // Still Ready: the lifecycle controller leaves a Ready node alone even if its instance is gone.
    await wholeMonitorPass('dc-term');
    expect((await core.readNode({ name })).metadata?.name).toBe(name);

    await setReady(admin, name, false);
    await eventually('node deleted', async () => {
      try {
        await core.readNode({ name });
        return undefined;
      } catch (err) {
        return (err as { code?: number }).code === 404 ? true : undefined;
      }
    });
    const [event] = await eventually('DeletingNode event', async () => {
      const e = await nodeEvents(admin, name, 'DeletingNode');
      return e.length > 0 ? e : undefined;
    });
    expect(event).toMatchObject({
      type: 'Normal',
      message: `Deleting node ${name} because it does not exist in the cloud provider`,
      source: { component: 'cloud-node-lifecycle-controller' },
    });
  });

  it('taints the Node of a stopped instance, and removes the taint once it runs and is Ready again', async () => {
    const name = nodeName('dc-stop');
    const inst = cloud.addInstance({ name });
    await core.createNode({ body: kubeletNode(name, { ready: true }) });
    await initialized(name);

    cloud.stopInstance(inst.id);
    await setReady(admin, name, false);
    const tainted = await eventually('shutdown taint', async () => {
      const n = await core.readNode({ name });
      return hasTaint(n, SHUTDOWN_TAINT_KEY) ? n : undefined;
    });
    expect(tainted.spec?.taints?.find((t) => t.key === SHUTDOWN_TAINT_KEY)).toMatchObject({ effect: 'NoSchedule' });
    // A stopped instance still exists: the Node must survive whole monitor passes.
    await wholeMonitorPass('dc-stop');
    expect(hasTaint(await core.readNode({ name }), SHUTDOWN_TAINT_KEY)).toBe(true);

    cloud.startInstance(inst.id);
    await setReady(admin, name, true);
    await eventually('shutdown taint removed', async () => {
      const n = await core.readNode({ name });
      return hasTaint(n, SHUTDOWN_TAINT_KEY) ? undefined : n;
    });
  });

  it('retries devcloud 500s with backoff and initializes the node once they stop', async () => {
    const name = nodeName('dc-500');
    cloud.addInstance({ name });
    cloud.resetCounters();
    cloud.setKnobs({ failNext: [{ kind: 'getInstanceByName', count: 3, status: 500 }] });
    await core.createNode({ body: kubeletNode(name, { ready: true }) });
    await initialized(name);

    expect(cloud.inventory().counters.getInstanceByName?.byStatus).toMatchObject({ '500': 3 });
    const failures = ccm.logs().filter((r) => r.msg === 'error syncing; requeueing with backoff' && r.key === name);
    expect(failures.map((r) => r.requeues)).toEqual([0, 1, 2]);
    expect(String(failures[0]?.err)).toContain('devcloud answered 500');
  });

  it('waits the Retry-After devcloud sends with a 429 before trying again', async () => {
    const name = nodeName('dc-429');
    cloud.addInstance({ name });
    cloud.setKnobs({ throttleNext: 2, retryAfterSeconds: 1 });
    const started = Date.now();
    await core.createNode({ body: kubeletNode(name, { ready: true }) });
    await initialized(name);

    // Two 429s, each honoured for its full second before the third call succeeds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(cloud.knobs().throttleNext).toBe(0);
    const delayed = ccm
      .logs()
      .filter((r) => r.msg === 'requeueing after the delay the provider asked for' && r.key === name);
    expect(delayed.map((r) => r.retryAfterSeconds)).toEqual([1, 1]);
  });

  it('keeps a node tainted through a devcloud outage and initializes it after the outage ends', async () => {
    const name = nodeName('dc-outage');
    cloud.addInstance({ name });
    cloud.setKnobs({ outage: true });
    await core.createNode({ body: kubeletNode(name, { ready: true }) });
    await eventually('several failed attempts', async () => {
      const n = ccm.logs().filter((r) => r.msg === 'error syncing; requeueing with backoff' && r.key === name);
      return n.length >= 8 ? n : undefined;
    });
    expect(hasTaint(await core.readNode({ name }), UNINITIALIZED_TAINT.key)).toBe(true);

    cloud.setKnobs({ outage: false });
    const node = await initialized(name, 30_000);
    expect(node.spec?.providerID).toMatch(/^devcloud:\/\/i-[0-9a-f]{16}$/);
    const failures = ccm.logs().filter((r) => r.msg === 'error syncing; requeueing with backoff' && r.key === name);
    expect(String(failures[0]?.err)).toContain('503');
    // Exponential: the gaps between attempts grow (5 ms, 10 ms, 20 ms, ... per upstream's item backoff).
    const times = failures.map((r) => Number(r.ts));
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps.at(-1)).toBeGreaterThan(gaps[0] ?? Infinity);
  });
});

function byTypeThenAddress(a: { type: string; address: string }, b: { type: string; address: string }): number {
  return a.type.localeCompare(b.type) || a.address.localeCompare(b.address);
}
