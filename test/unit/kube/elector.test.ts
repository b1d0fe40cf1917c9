import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock.ts';
import { TokenBucket } from '../../../host/src/kube/token-bucket.ts';
import { recordingLogger } from '../plugin/support/recording-logger.ts';
import {
  defaultIdentity,
  LeaderElector,
  type LeaderElectorOptions,
} from '../../../host/src/kube/leaderelection/elector.ts';
import { type CandidateLock, MemoryLease } from './support/memory-lease.ts';

interface Candidate {
  elector: LeaderElector;
  lock: CandidateLock;
  events: string[];
  leadSignal: AbortSignal | undefined;
  done: Promise<void>;
}

function candidate(
  lease: MemoryLease,
  clock: FakeClock,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const lock = lease.lockFor(clock);
  const c: Partial<Candidate> & { events: string[] } = { events: [], lock };
  c.elector = new LeaderElector({
    lock,
    identity,
    clock,
    random: () => 0, // retry exactly every retry period
    callbacks: {
      onStartedLeading: (signal) => {
        c.events.push(`started@${clock.now() - START}`);
        c.leadSignal = signal;
      },
      onStoppedLeading: () => void c.events.push(`stopped@${clock.now() - START}`),
      onNewLeader: (id) => void c.events.push(`leader:${id}`),
    },
    ...extra,
  });
  c.done = c.elector.run();
  return c as Candidate;
}

const START = Date.UTC(2026, 0, 1);

describe('LeaderElector', () => {
  it('creates the Lease, leads, and renews every retry period', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.leaseFresh()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started@0']);
    expect(lease.state?.record).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    await clock.advance(10_000);
    // create + one renewal every 2 s
    expect(lease.writes).toHaveLength(6);
    expect(lease.state?.record.renewTime).toBe(START + 10_000);
    expect(lease.state?.record.acquireTime).toBe(START);
    await a.elector.stop();
    await a.done;
  });

  it('with two candidates exactly one leads; the other takes over lease duration after the leader vanishes', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0);
    const b = candidate(lease, clock, 'b');
    await clock.advance(0);
    for (let t = 0; t < 20; t++) {
      await clock.advance(1_000);
      expect([a.elector.isLeader(), b.elector.isLeader()]).toEqual([true, false]);
    }
    expect(b.events).toEqual(['leader:a']);
    expect(b.elector.getLeader()).toBe('a');

    // 'a' dies without releasing: its requests stop reaching the apiserver.
    a.lock.down = true;
    const lastRenew = lease.state?.record.renewTime ?? 0;
    let tookOver = 0;
    for (let t = 0; t < 30_000 && !tookOver; t += 100) {
      await clock.advance(100);
      if (b.elector.isLeader()) tookOver = clock.now();
    }
    // b saw a's last renewal within one retry period of it; the lease then needs 15 s to expire.
    expect(tookOver - lastRenew).toBeGreaterThanOrEqual(15_000);
    expect(tookOver - lastRenew).toBeLessThanOrEqual(15_000 + 2_000 + 100);
    expect(lease.state?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(b.events).toContain('leader:b');
    // a stepped down on its own when it could not renew within the renew deadline.
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events.at(-1)).toMatch(/^stopped@/);
    await Promise.all([a.elector.stop(), b.elector.stop()]);
  });

  it('on stop releases the Lease (empty holder, 1 s) so the other candidate takes over at its next retry', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0);
    const b = candidate(lease, clock, 'b');
    await clock.advance(5_000);
    await a.elector.stop();
    await a.done;
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events.at(-1)).toBe('stopped@5000');
    expect(a.leadSignal?.aborted).toBe(true);
    expect(lease.state?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await clock.advance(2_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(lease.state?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.elector.stop();
  });

  it('does not release on stop when releaseOnCancel is false', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a', { releaseOnCancel: false });
    await clock.advance(0);
    await a.elector.stop();
    expect(lease.state?.record.holderIdentity).toBe('a');
    expect(a.events.at(-1)).toBe('stopped@0');
  });

  it('loses leadership when it cannot renew within the renew deadline of its last renewal', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0); // last successful renewal at t=0
    a.lock.down = true;
    await clock.advance(9_999);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.leaseFresh()).toBe(true);
    await clock.advance(1);
    // 10 s since the last renewal: the lease is stale and leadership ends with it, not at a later round's deadline.
    expect(a.elector.leaseFresh()).toBe(false);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual(['leader:a', 'started@0', 'stopped@10000']);
    expect(a.leadSignal?.aborted).toBe(true);
    await a.done; // run() resolves when leadership is lost
  });

  it('aborts hung requests at the renew deadline instead of waiting forever', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0);
    a.lock.hang = true;
    await clock.advance(12_000);
    expect(a.elector.isLeader()).toBe(false);
    await a.done;
  });

  it('retries after a 409 conflict and keeps leading', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const a = candidate(lease, clock, 'a');
    await clock.advance(0);
    a.lock.conflictNext = true;
    await clock.advance(2_000); // this renewal conflicts
    await clock.advance(2_000); // the retry succeeds
    expect(a.elector.isLeader()).toBe(true);
    expect(lease.state?.record.renewTime).toBe(START + 4_000);
    await a.elector.stop();
  });

  it('the healthz check fails only for a leader not renewed for lease duration + 20 s', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const b = candidate(lease, clock, 'b');
    expect(b.elector.check()).toBeUndefined(); // not leading: healthy
    await clock.advance(0);
    expect(b.elector.check()).toBeUndefined();
    // A stuck event loop: time passes but no renewal code runs (step fires timers without letting promises run).
    clock.step(35_000);
    expect(b.elector.check()).toBeUndefined();
    clock.step(1);
    expect(b.elector.check()).toMatch(
      /failed election to renew leadership on lease kube-system\/cloud-controller-manager/,
    );
    expect(b.elector.check(60_000)).toBeUndefined();
  });

  it('exports leader_election_master_status{name}', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const registry = new Registry();
    const a = candidate(lease, clock, 'a', { registry });
    const value = async () => (await registry.getSingleMetric('leader_election_master_status')?.get())?.values;
    expect(await value()).toEqual([{ value: 0, labels: { name: 'cloud-controller-manager' } }]);
    await clock.advance(0);
    expect(await value()).toEqual([{ value: 1, labels: { name: 'cloud-controller-manager' } }]);
    await a.elector.stop();
    expect(await value()).toEqual([{ value: 0, labels: { name: 'cloud-controller-manager' } }]);
  });

  it('contains callback failures', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const elector = new LeaderElector({
      lock: lease.lockFor(),
      identity: 'a',
      clock,
      callbacks: {
        onStartedLeading: () => Promise.reject(new Error('boom')),
        onStoppedLeading: () => {
          throw new Error('boom');
        },
      },
    });
    const done = elector.run();
    await clock.advance(0);
    expect(elector.isLeader()).toBe(true);
    await elector.stop();
    await done;
  });

  it('validates its timing like client-go and makes hostname_uuid identities', () => {
    const lock = new MemoryLease().lockFor();
    const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
    expect(() => new LeaderElector({ lock, identity: 'a', callbacks, leaseDurationMs: 10_000 })).toThrow(
      /greater than the renew deadline/,
    );
    expect(() => new LeaderElector({ lock, identity: 'a', callbacks, retryPeriodMs: 9_000 })).toThrow(
      /1.2 x retry period/,
    );
    expect(() => new LeaderElector({ lock, identity: '', callbacks })).toThrow(/identity/);
    expect(defaultIdentity()).toMatch(/^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('renews with one update per round (client-go fast path); after a conflict it reads first, counted', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const registry = new Registry();
    const a = candidate(lease, clock, 'a', { registry });
    await clock.advance(0);
    expect(a.lock.sent.map((r) => r.verb)).toEqual(['GET', 'POST']);
    await clock.advance(10_000);
    // Five renewals, each one PUT with the resourceVersion of the write before it: no GET.
    expect(a.lock.sent.slice(2).map((r) => r.verb)).toEqual(['PUT', 'PUT', 'PUT', 'PUT', 'PUT']);
    expect(lease.state?.record).toMatchObject({ renewTime: START + 10_000, acquireTime: START, leaseTransitions: 0 });

    // Someone else wrote the Lease: the optimistic PUT gets 409, then GET + PUT renews on what is there now.
    a.lock.conflictNext = true;
    await clock.advance(2_000);
    expect(a.lock.sent.slice(7).map((r) => r.verb)).toEqual(['PUT', 'GET', 'PUT']);
    expect(a.elector.isLeader()).toBe(true);
    expect(lease.state?.record.renewTime).toBe(START + 12_000);
    const slowpath = await registry.getSingleMetric('leader_election_slowpath_total')?.get();
    expect(slowpath?.values).toEqual([{ value: 1, labels: { name: 'cloud-controller-manager' } }]);
    await a.elector.stop();
  });

  it('never sends a renewal past its deadline, even when the rate limiter runs first after a stall', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const { logger, records } = recordingLogger();
    const a = candidate(lease, clock, 'a', { logger });
    await clock.advance(0);
    // A token every 2.5 s, a round every 2 s: soon a renewal PUT waits on the limiter's timer.
    a.lock.limiter = new TokenBucket(0.4, 1, clock);
    for (let t = 0; t < 30_000 && a.lock.waitingOnLimiter !== 'PUT'; t += 50) await clock.advance(50);
    expect(a.lock.waitingOnLimiter).toBe('PUT');
    const deadline = (lease.state?.record.renewTime ?? 0) + 10_000;

    // 20 s without the event loop: the limiter's timer and the deadline's are both overdue; the limiter's, due
    // first, runs first, and its continuation reaches the write before the deadline's timer could abort it.
    await clock.freeze(20_000);
    expect(a.lock.writesSent.filter((w) => w.at >= deadline)).toEqual([]);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events.at(-1)).toBe(`stopped@${clock.now() - START}`);
    expect(records.map((r) => r.message)).toEqual(
      expect.arrayContaining(['lease request not sent: past its deadline', 'failed to renew lease: leadership lost']),
    );
    await a.done;
  });

  it('a stall in the sleep between rounds: past the deadline leadership is lost, never renewed late', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const { logger, records } = recordingLogger();
    const a = candidate(lease, clock, 'a', { logger, eventLoopStallMs: () => 11_000 });
    await clock.advance(2_000); // acquired at 0, renewed at 2 s; the next round sleeps until 4 s
    const writes = lease.writes.length;
    await clock.freeze(11_000); // wakes at 13 s: 11 s after the last renewal, past its 10 s deadline
    expect(lease.writes).toHaveLength(writes);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events.at(-1)).toBe('stopped@13000');
    const lost = records.find((r) => r.message === 'failed to renew lease: leadership lost');
    expect(lost?.fields).toMatchObject({
      sinceLastRenewalMs: 11_000,
      renewDeadlineMs: 10_000,
      eventLoopStallMs: 11_000,
    });
    await a.done;
  });

  it('a stall in the sleep shorter than the deadline: renewed late, logged and measured', async () => {
    const clock = new FakeClock(START);
    const lease = new MemoryLease();
    const registry = new Registry();
    const { logger, records } = recordingLogger();
    const a = candidate(lease, clock, 'a', { logger, registry, eventLoopStallMs: () => 6_000 });
    await clock.advance(2_000);
    await clock.freeze(6_000); // wakes at 8 s, 6 s after the last renewal: within the deadline
    expect(a.elector.isLeader()).toBe(true);
    expect(lease.state?.record.renewTime).toBe(START + 8_000);
    const late = records.find((r) => r.message === 'lease renewed late');
    expect(late).toMatchObject({ level: 'warn', fields: { intervalMs: 6_000, eventLoopStallMs: 6_000 } });
    const text = await registry.getSingleMetricAsString('wasm_ccm_leader_election_renew_interval_seconds');
    expect(text).toContain(
      'wasm_ccm_leader_election_renew_interval_seconds_bucket{le="5",name="cloud-controller-manager"} 1',
    );
    expect(text).toContain(
      'wasm_ccm_leader_election_renew_interval_seconds_bucket{le="7.5",name="cloud-controller-manager"} 2',
    );
    await a.elector.stop();
  });
});
