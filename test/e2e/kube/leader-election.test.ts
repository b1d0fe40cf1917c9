// Two (and three) candidates on one real Lease. Timings are shortened (lease 5 s, renew deadline 3 s, retry 1 s)
// to keep the test quick; the algorithm is the same as with the 15/10/2 s defaults.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { LeaderElector } from '../../../host/src/kube/leaderelection/elector.ts';
import { kubeLeaseLock } from '../../../host/src/kube/leaderelection/lease-lock.ts';
import { type Logger, silentLogger } from '../../../host/src/log/logger.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually } from './support/wait.ts';

const LEASE_MS = 5_000;

/** A logger that counts the rounds in which an elector found the Lease held by another and waited. */
function heldRoundsCounter(): { logger: Logger; rounds: () => number } {
  let rounds = 0;
  const logger: Logger = {
    ...silentLogger,
    debug: (message) => {
      if (message === 'lock is held and has not yet expired') rounds++;
    },
    child: () => logger,
  };
  return { logger, rounds: () => rounds };
}

describe('leader election (real apiserver)', () => {
  const info = inject('controlPlane');
  const client = new KubeClient(adminKubeConfig(info));
  const leaseName = uniqueName('ccm-lease');
  const electors: LeaderElector[] = [];
  const leaseNames = new Set<string>();

  afterAll(async () => {
    await Promise.all(electors.map((e) => e.stop()));
    for (const name of leaseNames) {
      await client
        .request({ method: 'DELETE', path: `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}` })
        .catch(() => undefined);
    }
  });

  function candidate(identity: string, releaseOnCancel: boolean, name = leaseName) {
    leaseNames.add(name);
    const log: string[] = [];
    const held = heldRoundsCounter();
    const elector = new LeaderElector({
      lock: kubeLeaseLock(client, 'kube-system', name),
      identity,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 1_000,
      releaseOnCancel,
      logger: held.logger,
      callbacks: {
        onStartedLeading: () => void log.push('started'),
        onStoppedLeading: () => void log.push('stopped'),
        onNewLeader: (id) => void log.push(`leader:${id}`),
      },
    });
    electors.push(elector);
    void elector.run();
    return { elector, log, heldRounds: held.rounds };
  }

  async function lease(name = leaseName): Promise<{ spec: Record<string, unknown> }> {
    return client.request({ path: `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}` });
  }

  it('exactly one of two leads; the other takes over about a lease duration after the leader dies silently', async () => {
    const a = candidate('cand-a', false);
    const b = candidate('cand-b', false);
    await eventually('a leader', () => a.elector.isLeader() || b.elector.isLeader());
    const [leader, follower] = a.elector.isLeader() ? [a, b] : [b, a];
    // Stable for a few rounds: the follower finds the Lease held three times and waits; never two leaders, and the
    // follower knows who leads.
    await eventually('three rounds of the follower', () => follower.heldRounds() >= 3);
    expect(leader.elector.isLeader()).toBe(true);
    expect(follower.elector.isLeader()).toBe(false);
    expect(follower.log).not.toContain('started');
    expect(follower.elector.getLeader()).toBe(leader.elector.identity);
    expect(leader.elector.leaseFresh()).toBe(true);

    const written = await lease();
    expect(written.spec).toMatchObject({
      holderIdentity: leader.elector.identity,
      leaseDurationSeconds: 5,
      leaseTransitions: 0,
    });
    expect(written.spec.renewTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(written.spec.acquireTime).toMatch(/\.\d{6}Z$/);

    // The leader stops renewing without releasing (a crash, as far as the Lease can tell).
    const stoppedAt = Date.now();
    await leader.elector.stop();
    expect(leader.log.at(-1)).toBe('stopped');
    await eventually('the takeover', () => follower.elector.isLeader(), 2 * LEASE_MS + 2_000);
    const tookMs = Date.now() - stoppedAt;
    // Not before the lease could expire (last renewal <= 1 s before the stop), and within one more lease duration:
    // the follower's retries are jittered up to 2.2 s, and its requests and timers run late on a loaded machine.
    expect(tookMs).toBeGreaterThanOrEqual(LEASE_MS - 1_500);
    expect(tookMs).toBeLessThanOrEqual(2 * LEASE_MS);
    expect(follower.log).toContain('started');
    const after = await lease();
    expect(after.spec).toMatchObject({ holderIdentity: follower.elector.identity, leaseTransitions: 1 });
  });

  it('a released Lease is taken over at once, well before the lease duration', async () => {
    const name = uniqueName('ccm-lease-release');
    const c = candidate('cand-c', true, name);
    await eventually('cand-c leading', () => c.elector.isLeader());
    const d = candidate('cand-d', false, name);
    await eventually('cand-d to find the Lease held', () => d.heldRounds() >= 1);
    expect(d.elector.isLeader()).toBe(false);
    expect(d.elector.getLeader()).toBe('cand-c');

    const releasedAt = Date.now();
    await c.elector.stop(); // releaseOnCancel: holder '' and a 1 s duration
    expect(c.log.at(-1)).toBe('stopped');
    await eventually('cand-d leading after the release', () => d.elector.isLeader(), LEASE_MS);
    // Within one jittered retry period (<= 2.2 s), not after the 5 s lease duration.
    expect(Date.now() - releasedAt).toBeLessThan(3_000);
    expect((await lease(name)).spec).toMatchObject({
      holderIdentity: 'cand-d',
      leaseTransitions: 1,
      leaseDurationSeconds: 5,
    });
  });
});
