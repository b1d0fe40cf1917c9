// The chaos run's judges on hand-made histories: who led when (from Lease observations), which cloud changes a
// non-leader made, and which load balancer was deleted while its Service wanted it.
import type { V1Lease, V1Service } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvariantMonitor,
  nodeViolations,
  LeaseHistory,
  CATCH_UP_MS,
  ServiceTimeline,
} from '../../../lab/chaos/index.ts';
import { CALLER_HEADER, type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';

const T0 = Date.parse('2026-11-24T03:00:00.000Z');

function lease(holder: string, acquiredAt: number, renewedAt: number): V1Lease {
  return {
    spec: {
      holderIdentity: holder,
      acquireTime: new Date(acquiredAt),
      renewTime: new Date(renewedAt),
      leaseDurationSeconds: 4,
    },
  };
}

const lbService = (type = 'LoadBalancer'): V1Service => ({ metadata: { name: 'web' }, spec: { type } });

describe('LeaseHistory', () => {
  it('knows each holder from its acquisition to its last renewal plus the lease duration', () => {
    const h = new LeaseHistory(() => Promise.reject(new Error('not polled here')));
    h.observe(lease('a', T0, T0));
    h.observe(lease('a', T0, T0 + 3_000));
    // a stops renewing (paused); b takes over once the lease ran out.
    h.observe(lease('b', T0 + 8_000, T0 + 8_000));
    expect(h.led('a', T0 + 6_999)).toBe(true);
    expect(h.led('a', T0 + 7_001)).toBe(false);
    expect(h.led('b', T0 + 7_500)).toBe(false);
    expect(h.led('b', T0 + 9_000)).toBe(true);
    expect(h.leaderAt(T0 + 7_500)).toBe('');
    // A release ends the tenure at once.
    h.observe({ spec: { holderIdentity: '', renewTime: new Date(T0 + 10_000), leaseDurationSeconds: 4 } });
    expect(h.led('b', T0 + 10_500)).toBe(false);
  });
});

describe('InvariantMonitor', () => {
  let cloud: Devcloud;
  afterEach(() => cloud.stop());

  async function write(method: string, path: string, caller: string, body?: unknown): Promise<void> {
    await fetch(`${cloud.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${cloud.token}`,
        [CALLER_HEADER]: caller,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  }

  it('counts a change by a replica whose lease had run out, and a deletion while the Service wanted it', async () => {
    cloud = await startDevcloud();
    const now = Date.now();
    const leases = new LeaseHistory(() => Promise.reject(new Error('not polled here')));
    // "old" led until 10 s ago; "new" leads now.
    leases.observe(lease('old', now - 60_000, now - 14_000));
    leases.observe(lease('new', now - 9_000, now));
    leases.lastPollAt = now + 5_000;
    const timeline = new ServiceTimeline();
    timeline.observe('kubernetes-chaos-web', lbService(), now - 30_000, now - 30_000);
    const monitor = new InvariantMonitor(cloud, leases, timeline);

    const lb = { name: 'kubernetes-chaos-web', listeners: [{ protocol: 'TCP', port: 80, nodePort: 30080 }] };
    await write('POST', '/load-balancers', 'new', { ...lb, backendInstanceIds: [] });
    await write('DELETE', '/load-balancers/kubernetes-chaos-web', 'old');
    monitor.check();

    expect(monitor.mutationsChecked).toBe(2);
    expect(monitor.loadBalancerDeletesChecked).toBe(1);
    expect(monitor.violations.map((v) => v.kind)).toEqual([
      'non-leader-mutation',
      'load-balancer-deleted-while-wanted',
    ]);
    expect(monitor.violations[0]!.detail).toBe('DELETE /v1/load-balancers/kubernetes-chaos-web by old while new led');
  });

  it('leaves the leader alone, and a deletion after the Service stopped wanting its load balancer', async () => {
    cloud = await startDevcloud();
    const now = Date.now();
    const leases = new LeaseHistory(() => Promise.reject(new Error('not polled here')));
    leases.observe(lease('new', now - 9_000, now));
    leases.lastPollAt = now + 5_000;
    const timeline = new ServiceTimeline();
    timeline.observe('kubernetes-chaos-web', lbService(), now - 30_000, now - 30_000);
    timeline.closing('kubernetes-chaos-web', now - 1_000);
    timeline.observe('kubernetes-chaos-web', lbService('ClusterIP'), now - 1_000, now - 500);
    const monitor = new InvariantMonitor(cloud, leases, timeline);
    cloud.addLoadBalancer({ name: 'kubernetes-chaos-web', listeners: [], backendInstanceIds: [] });
    await write('DELETE', '/load-balancers/kubernetes-chaos-web', 'new');
    monitor.check();
    expect(monitor.loadBalancerDeletesChecked).toBe(1);
    expect(monitor.violations).toEqual([]);
  });

  it('waits to judge a change until the Lease has been read after it', async () => {
    cloud = await startDevcloud();
    const leases = new LeaseHistory(() => Promise.reject(new Error('not polled here')));
    const monitor = new InvariantMonitor(cloud, leases, new ServiceTimeline());
    const target = cloud.addInstance({ name: 'n' });
    await write('POST', '/routes', 'someone', {
      name: 'r',
      destinationCidr: '172.16.0.0/24',
      targetInstanceId: target.id,
    });
    expect(cloud.mutations()).toHaveLength(1);
    monitor.check();
    expect(monitor.mutationsChecked).toBe(0);
  });
});

describe('ServiceTimeline', () => {
  it('excuses a deletion that answers a short spell of not wanting, never one of a Service that always wanted', () => {
    const t = new ServiceTimeline();
    const name = 'kubernetes-chaos-web';
    t.observe(name, lbService(), T0, T0);
    expect(t.wantedAt(name, T0 + 1_000)).toBe(true);
    // LoadBalancer -> ClusterIP -> LoadBalancer, 2.4 s apart: a deletion 1.6 s after is the first change's answer.
    t.closing(name, T0 + 60_000);
    t.observe(name, lbService('ClusterIP'), T0 + 60_000, T0 + 60_100);
    t.closing(name, T0 + 62_400);
    t.observe(name, lbService(), T0 + 62_400, T0 + 62_500);
    expect(t.wantedAt(name, T0 + 61_000)).toBe(false);
    expect(t.wantedAt(name, T0 + 64_100)).toBe(false);
    expect(t.wantedAt(name, T0 + 62_500 + CATCH_UP_MS + 1)).toBe(true);
  });
});

describe('nodeViolations', () => {
  it('wants running instances initialized and untainted, terminated ones without a Node', () => {
    const at = '2026-11-24T03:00:00.000Z';
    const instance = (id: string, name: string, state: 'running' | 'stopped' | 'terminated') => ({
      id,
      name,
      state,
      type: 'dc.small',
      zone: 'z',
      region: 'r',
      addresses: [],
      labels: {},
      createdAt: at,
      updatedAt: at,
    });
    const out = nodeViolations(
      [
        { metadata: { name: 'chaos-a' }, spec: { providerID: 'devcloud://i-a' } },
        {
          metadata: { name: 'chaos-b' },
          spec: { taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' }] },
        },
        { metadata: { name: 'chaos-c' }, spec: { providerID: 'devcloud://i-c' } },
        {
          metadata: { name: 'chaos-d' },
          spec: {
            providerID: 'devcloud://i-d',
            taints: [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' }],
          },
        },
      ],
      [
        instance('i-a', 'chaos-a', 'running'),
        instance('i-b', 'chaos-b', 'running'),
        instance('i-c', 'chaos-c', 'terminated'),
        instance('i-d', 'chaos-d', 'stopped'),
      ],
    );
    expect(out).toEqual([
      'node chaos-b: instance runs but the node has no providerID',
      'node chaos-b: instance runs but the node is still uninitialized',
      'node chaos-c: its instance is terminated but the Node still exists',
    ]);
  });
});
