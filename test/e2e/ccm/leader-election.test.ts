// Leader election of real wasm-ccm processes on the real Lease kube-system/cloud-controller-manager, with the RBAC
// of manifests/: exactly one of two replicas leads; after a SIGKILL the standby takes over and initializes a new
// node; a SIGTERMed leader hands the Lease back at once and exits 0. The first replicas run with short lease
// timings (6 s / 4 s / 1 s) so a SIGKILL takeover fits in 15 s; the standby for the SIGTERM check uses the defaults.
import { CoordinationV1Api, CoreV1Api, type V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  type CCMProcess,
  type LogRecord,
  deleteNodes,
  hasTaint,
  kubeletNode,
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

const LEASE = { namespace: 'kube-system', name: 'cloud-controller-manager' };
const SHORT_LEASE = [
  '--leader-elect-lease-duration=6s',
  '--leader-elect-renew-deadline=4s',
  '--leader-elect-retry-period=1s',
];
const isStartedLeading = (r: LogRecord) => r.msg === 'started leading';
/** A standby's round that found the Lease held and waited (a debug record: the replica runs with --v=2). */
const waitedFor = (holder: string) => (r: LogRecord) =>
  r.msg === 'lock is held and has not yet expired' && r.holder === holder;

describe('leader election of wasm-ccm replicas (real processes, manifest RBAC)', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const coordination = admin.makeApiClient(CoordinationV1Api);
  const nodes: string[] = [];
  const replicas: CCMProcess[] = [];
  let token: string;
  let cloud: Devcloud;

  const lease = (name = LEASE.name): Promise<V1Lease> =>
    coordination.readNamespacedLease({ namespace: LEASE.namespace, name });

  function replica(tag: string, args: string[]): CCMProcess {
    const ccm = startDevcloudCCM(info, token, cloud, tag, ['--controllers=cloud-node', ...args]);
    replicas.push(ccm);
    return ccm;
  }

  async function identityOf(ccm: CCMProcess): Promise<string> {
    const record = await ccm.waitForLog('started leading', isStartedLeading, 30_000);
    return String(record.identity);
  }

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    token = (await ccmIdentity(info, admin)).token;
    cloud = await startDevcloud();
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await deleteNodes(admin, nodes);
    await cloud?.stop();
  });

  let a: CCMProcess;
  let b: CCMProcess;
  let c: CCMProcess;
  let bIdentity = '';

  it('exactly one of two replicas leads; after the leader is SIGKILLed the other initializes a new node within 15 s', async () => {
    a = replica('le-a', SHORT_LEASE);
    const aIdentity = await identityOf(a);
    await a.ready();
    b = replica('le-b', [...SHORT_LEASE, '--v=2']);
    // The standby sees A as the leader and stays a follower for several rounds, each finding A's Lease held.
    await b.waitForLog('B to observe the leader', (r) => r.msg === 'new leader elected' && r.leader === aIdentity);
    await eventually('B to wait out three rounds', () => b.logs().filter(waitedFor(aIdentity)).length >= 3);
    expect((await lease()).spec?.holderIdentity).toBe(aIdentity);
    expect(b.logs().some(isStartedLeading)).toBe(false);
    expect(b.logs().some((r) => r.msg === 'caches synced; starting controllers')).toBe(false);
    expect(a.logs().filter(isStartedLeading)).toHaveLength(1);
    const transitions = (await lease()).spec?.leaseTransitions ?? 0;

    const name = uniqueName('le-node');
    nodes.push(name);
    cloud.addInstance({ name });
    a.process.killNow();
    const killedAt = Date.now();
    expect(await a.process.exited).toBeNull();
    await core.createNode({ body: kubeletNode(name, { ready: true }) });

    await eventually(
      'the standby to initialize the new node',
      async () => (hasTaint(await core.readNode({ name }), UNINITIALIZED_TAINT.key) ? undefined : true),
      20_000,
    );
    const tookMs = Date.now() - killedAt;
    expect(tookMs).toBeLessThan(15_000);
    bIdentity = await identityOf(b);
    const held = await lease();
    expect(held.spec?.holderIdentity).toBe(bIdentity);
    expect(held.spec?.leaseTransitions).toBe(transitions + 1);
    console.log(`SIGKILL -> standby initialized a new node in ${tookMs} ms`);
  });

  it('a SIGTERMed leader releases the Lease at once and exits 0; the standby takes over', async () => {
    expect(bIdentity).not.toBe('');
    // A standby with the default timings (lease 15 s): it could only take over early if B really released.
    c = replica('le-c', []);
    await c.waitForLog('C to observe the leader', (r) => r.msg === 'new leader elected' && r.leader === bIdentity);

    const termAt = Date.now();
    const exited = b.stop();
    const after = await eventually(
      'the Lease to leave B',
      async () => {
        const l = await lease();
        return l.spec?.holderIdentity !== bIdentity ? l : undefined;
      },
      10_000,
    );
    const releasedMs = Date.now() - termAt;
    expect(releasedMs).toBeLessThan(3_000);
    const holderAfter = after.spec?.holderIdentity ?? '';
    expect(await exited).toBe(0);
    expect(Date.now() - termAt).toBeLessThan(30_000);
    expect(b.logs().some((r) => r.msg === 'released leader lease')).toBe(true);

    // C takes over well within a lease duration of B's last renewal: retry period (2 s) x jitter (<= 2.2).
    const cIdentity = await identityOf(c);
    // Right after B let go the Lease was either released (empty holder) or already C's, never anyone else's.
    expect(['', cIdentity]).toContain(holderAfter);
    expect((await lease()).spec?.holderIdentity).toBe(cIdentity);
    expect(Date.now() - termAt).toBeLessThan(8_000);
    console.log(`SIGTERM -> lease released in ${releasedMs} ms, standby leading after ${Date.now() - termAt} ms`);
    expect(await c.stop()).toBe(0);
  });

  it('keeps renewing the Lease while node syncs saturate the apiserver rate limit', async () => {
    // 1 QPS and 20 workers: a burst of new nodes queues far more than a renew deadline (3 s) of requests. The
    // renewals must not wait behind them (upstream gives leader election its own client and rate limiter).
    const e = replica('le-e', [
      '--kube-api-qps=1',
      '--kube-api-burst=1',
      '--concurrent-node-syncs=20',
      '--plugin-pool-size=2',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=1s',
    ]);
    const eIdentity = await identityOf(e);
    await e.ready();
    const batch = Array.from({ length: 20 }, () => uniqueName('le-flood'));
    nodes.push(...batch);
    for (const name of batch) cloud.addInstance({ name });
    await Promise.all(batch.map((name) => core.createNode({ body: kubeletNode(name, { ready: true }) })));

    // Renewals are judged by the Lease's resourceVersion moving on (each renewal is one write), not by the age of
    // its renewTime at one instant: a renewal a little late is still a renewal, and a frozen process shows as
    // leadership lost (it never sends a renewal past its deadline), which the log check below reports.
    // A renewal every second (retry period): five versions within 8 s, the slack of a busy machine included.
    const versions = new Set<string>();
    const holders = new Set<string>();
    const watchedFrom = Date.now();
    await eventually(
      'five Lease versions',
      async () => {
        const seen = await lease();
        holders.add(seen.spec?.holderIdentity ?? '');
        versions.add(seen.metadata?.resourceVersion ?? '');
        return versions.size >= 5;
      },
      8_000,
      250,
    );
    expect([...holders]).toEqual([eIdentity]);
    expect(
      e.logs().filter((r) => r.msg === 'leaderelection lost' || r.msg === 'failed to renew lease: leadership lost'),
    ).toEqual([]);
    expect(e.process.running).toBe(true);
    const late = e.logs().filter((r) => r.msg === 'lease renewed late');
    console.log(
      `saturated rate limiter: ${versions.size} Lease versions in ${Date.now() - watchedFrom} ms; ` +
        `late renewals: ${JSON.stringify(late)}`,
    );
    // The flood is still being worked through at 1 QPS: the renewals did not wait for it.
    const tainted = await Promise.all(
      batch.map(async (name) => hasTaint(await core.readNode({ name }), UNINITIALIZED_TAINT.key)),
    );
    expect(tainted.filter(Boolean).length).toBeGreaterThan(0);
    // With syncs queued for many seconds more, SIGTERM still gives the Lease back (after a bounded grace for
    // in-flight work) rather than running into the forced exit, which would leave it held for a lease duration.
    const termAt = Date.now();
    expect(await e.stop()).toBe(0);
    const exitMs = Date.now() - termAt;
    console.log(`SIGTERM with a saturated rate limiter -> exit 0 after ${exitMs} ms`);
    expect(exitMs).toBeLessThan(20_000);
    expect(e.logs().some((r) => r.msg === 'released leader lease')).toBe(true);
    expect((await lease()).spec?.holderIdentity ?? '').toBe('');
  });

  it('a Lease the manifest RBAC does not grant is refused with 403, logged, and never led', async () => {
    const other = uniqueName('not-granted');
    const d = replica('le-d', ['--leader-elect-retry-period=1s', `--leader-elect-resource-name=${other}`]);
    const refused = await d.waitForLog('the 403', (r) => r.msg === 'lease acquire/renew failed');
    // A warning: klog's JSON writes it at verbosity 0, shown at the default -v.
    expect(refused).toMatchObject({ v: 0, code: 403, reason: 'Forbidden' });
    expect(String(refused.err)).toContain('cannot get resource "leases"');
    expect(d.logs().some(isStartedLeading)).toBe(false);
    await expect(lease(other)).rejects.toMatchObject({ code: 404 });
    expect(await d.stop()).toBe(0);
  });
});
