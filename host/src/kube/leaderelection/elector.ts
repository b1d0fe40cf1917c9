// Lease-based leader election with client-go's timing: try to acquire every retryPeriod (jittered); once leading,
// renew every retryPeriod; if no renewal succeeds within renewDeadline of the last one, leadership is lost
// (onStoppedLeading; the CCM then exits non-zero, as upstream does). A renewal is one optimistic update with the
// resourceVersion we last wrote (client-go's fast path); only when that fails does it read the Lease first. The
// deadline (last renewal + renewDeadline) is on our own clock and is checked right before a request's bytes are
// written, after the rate limiter's wait: a process that stalled (GC, SIGSTOP, a paused VM) never sends a renewal
// that would make a lease another replica may already hold look renewed. Every request of a round is also aborted
// at the deadline, so a hung request cannot keep us "leading" on a stale lease.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { apiErrorInfo } from '../client/errors.ts';
import { type Clock, realClock, sleep } from '../clock.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import { electionMetrics } from './election-metrics.ts';
import type { BeforeWrite, LeaseLock, LeaseState } from './lease-lock.ts';
import {
  decide,
  type LeaderElectionRecord,
  type Observation,
  observe,
  releasedRecord,
  renewedRecord,
} from './record.ts';

export interface LeaderCallbacks {
  /** Called once leadership is acquired; `signal` aborts when it ends. Errors are logged, not thrown. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once when leadership ends (lost, or released by stop()); only after onStartedLeading. */
  onStoppedLeading(): void;
  /** The holder of the Lease changed (including to us). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectorOptions {
  lock: LeaseLock;
  identity: string;
  callbacks: LeaderCallbacks;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Give the Lease up on stop() so another replica takes over at once (upstream ReleaseOnCancel). */
  releaseOnCancel?: boolean;
  /** The `name` label of the leader_election_* metrics (upstream: the lease name). */
  name?: string;
  registry?: Registry;
  /** The longest event-loop stall (ms) of late, named in the log line of a late or missed renewal. */
  eventLoopStallMs?: () => number;
  clock?: Clock;
  logger?: Logger;
  random?: () => number;
}

const DEFAULT_LEASE_DURATION_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** Upstream's HealthzAdaptor timeout for the leaderElection check. */
const DEFAULT_MAX_TOLERABLE_EXPIRED_LEASE_MS = 20_000;
const JITTER_FACTOR = 1.2;

/** `hostname_<uuid>`, unique per process like upstream's identity. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** A lease request refused unsent: its bytes would have left after its deadline (for a renewal: last renewal + renew deadline). */
class LeaseDeadlineError extends Error {
  override name = 'LeaseDeadlineError';
}

export class LeaderElector {
  readonly identity: string;
  private readonly lock: LeaseLock;
  private readonly callbacks: LeaderCallbacks;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly releaseOnCancel: boolean;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly random: () => number;
  private readonly setStatus: (leading: boolean) => void;
  private readonly countSlowpath: () => void;
  private readonly observeRenewInterval: (ms: number) => void;
  private readonly eventLoopStallMs: (() => number) | undefined;
  private readonly stopController = new AbortController();
  private leadController: AbortController | undefined;
  private observation: Observation | undefined;
  private resourceVersion = '';
  private leading = false;
  private lastRenewAt = -Infinity;
  private reportedLeader = '';
  private running: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.lock = options.lock;
    this.identity = options.identity;
    this.callbacks = options.callbacks;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    this.releaseOnCancel = options.releaseOnCancel ?? true;
    this.clock = options.clock ?? realClock;
    this.log = (options.logger ?? silentLogger).child({ lease: options.lock.description, identity: this.identity });
    this.random = options.random ?? Math.random;
    // Same constraints as client-go's NewLeaderElector.
    if (!this.identity) throw new Error('leader election: identity must not be empty');
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new Error('leader election: lease duration must be greater than the renew deadline');
    }
    if (!(this.renewDeadlineMs > JITTER_FACTOR * this.retryPeriodMs)) {
      throw new Error(`leader election: renew deadline must be greater than ${JITTER_FACTOR} x retry period`);
    }
    if (!(this.retryPeriodMs > 0)) throw new Error('leader election: retry period must be positive');
    const metrics = options.registry ? electionMetrics(options.registry) : undefined;
    const labels = { name: options.name ?? options.lock.description.split('/').pop() ?? '' };
    this.setStatus = (leading) => metrics?.status.set(labels, leading ? 1 : 0);
    this.countSlowpath = () => metrics?.slowpath.inc(labels);
    this.observeRenewInterval = (ms) => metrics?.renewInterval.observe(labels, ms / 1000);
    this.eventLoopStallMs = options.eventLoopStallMs;
    this.setStatus(false);
  }

  /** Campaigns, leads, and resolves when leadership ends (lost or stopped) or stop() is called first. */
  run(): Promise<void> {
    this.running ??= this.campaign().catch((err: unknown) => {
      this.log.error('leader election loop crashed', { error: err });
      this.endLeadership('crashed');
    });
    return this.running;
  }

  /** Stops campaigning or leading; releases the Lease if we hold it and releaseOnCancel. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await this.running;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * True only while leading and our last successful renewal is younger than the renew deadline: the check to
   * make right before starting a cloud mutation.
   */
  leaseFresh(): boolean {
    return this.leaseFreshForMs() > 0;
  }

  /**
   * How much longer (ms) the lease counts as fresh: until our last successful renewal is renewDeadline old; 0 when
   * not leading. What a cloud mutation already under way checks right before its bytes go on the wire, and the time
   * by which they must be there.
   */
  leaseFreshForMs(): number {
    if (!this.leading) return 0;
    return Math.max(0, this.lastRenewAt + this.renewDeadlineMs - this.clock.now());
  }

  /** The identity last seen holding the Lease ('' if none). */
  getLeader(): string {
    return this.observation?.record.holderIdentity ?? '';
  }

  /**
   * Upstream's leaderElection healthz check: fails (returns the reason) when we believe we lead but have not
   * renewed for leaseDuration + maxTolerableExpiredLease; a non-leader is always healthy.
   */
  check(maxTolerableExpiredLeaseMs = DEFAULT_MAX_TOLERABLE_EXPIRED_LEASE_MS): string | undefined {
    if (!this.leading) return undefined;
    const since = this.clock.now() - this.lastRenewAt;
    if (since > this.leaseDurationMs + maxTolerableExpiredLeaseMs) {
      return `failed election to renew leadership on lease ${this.lock.description} (last renewal ${Math.round(since / 1000)} s ago)`;
    }
    return undefined;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  private async campaign(): Promise<void> {
    const stop = this.stopController.signal;
    this.log.info('attempting to acquire leader lease');
    while (!this.stopped) {
      if (await this.tryAcquireOrRenew(this.clock.now() + this.renewDeadlineMs)) break;
      // wait.JitterUntil(retryPeriod, 1.2): between 1 and 2.2 retry periods.
      await sleep(this.clock, this.retryPeriodMs * (1 + JITTER_FACTOR * this.random()), stop);
    }
    if (this.stopped) return;
    this.leading = true;
    this.leadController = new AbortController();
    this.setStatus(true);
    this.log.info('successfully acquired lease');
    this.invoke('onStartedLeading', () => this.callbacks.onStartedLeading(this.leadController?.signal ?? stop));

    while (!this.stopped) {
      // client-go renews once more right after acquiring; the write it just made is fresh, so wait first.
      await sleep(this.clock, this.retryPeriodMs, stop);
      if (this.stopped) break;
      if ((await this.renew()) === 'lost') {
        this.endLeadership('lost');
        return;
      }
    }
    // Stopped while leading: step down first (isLeader() false), then give the Lease away.
    const held = this.observation?.record;
    this.endLeadership('stopped');
    if (this.releaseOnCancel && held && held.holderIdentity === this.identity) await this.release(held);
  }

  /**
   * One renewal round: an attempt every retry period until one succeeds, or the deadline passes. The deadline
   * counts from the last successful renewal, not from the round's start, so a stall during the sleep before the
   * round (or a round that started late) cannot stretch it.
   */
  private async renew(): Promise<'renewed' | 'lost' | 'stopped'> {
    const deadline = this.lastRenewAt + this.renewDeadlineMs;
    while (!this.stopped) {
      if (this.clock.now() >= deadline) {
        this.log.error('failed to renew lease: leadership lost', {
          renewDeadlineMs: this.renewDeadlineMs,
          sinceLastRenewalMs: Math.round(this.clock.now() - this.lastRenewAt),
          ...this.stallField(),
        });
        return 'lost';
      }
      if (await this.tryAcquireOrRenew(deadline)) return 'renewed';
      if (this.stopped) break;
      await sleep(this.clock, Math.min(this.retryPeriodMs, Math.max(0, deadline - this.clock.now())), this.stopSignal);
    }
    return 'stopped';
  }

  /** One attempt; never throws. Requests are aborted at `deadline`, and not sent once it has passed. */
  private async tryAcquireOrRenew(deadline: number): Promise<boolean> {
    const now = this.clock.now();
    const { signal, cancel } = this.deadlineSignal(deadline, true);
    const beforeWrite: BeforeWrite = () =>
      this.clock.now() < deadline
        ? undefined
        : new LeaseDeadlineError(
            `not sent: ${Math.round(this.clock.now() - now)} ms after the attempt began, past its deadline`,
          );
    try {
      if (await this.tryFastPath(now, signal, beforeWrite)) return true;
      if (signal.aborted || this.clock.now() >= deadline) return false;
      const current = await this.lock.get(signal, beforeWrite);
      const { decision, observation } = decide({
        identity: this.identity,
        now,
        leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
        current: current?.record,
        previous: this.observation,
      });
      this.observation = observation;
      if (current) this.resourceVersion = current.resourceVersion;
      this.reportLeader();
      if (decision.action === 'wait') {
        // client-go logs every round a standby waits (V(4)): how a standby's rounds can be counted from outside.
        this.log.debug('lock is held and has not yet expired', { holder: decision.holder });
        return false;
      }
      if (this.leading) this.countSlowpath();
      const written =
        decision.action === 'create'
          ? await this.lock.create(decision.record, signal, beforeWrite)
          : await this.lock.update(decision.record, this.resourceVersion, signal, beforeWrite);
      this.wrote(written, now);
      return true;
    } catch (err) {
      this.logFailure(err, now);
      return false;
    } finally {
      cancel();
    }
  }

  /**
   * client-go's fast path: while leading on a lease still valid by what we last wrote, renew with one update
   * carrying that write's resourceVersion, no read first. False (after logging why) when it does not apply or
   * fails; the caller then reads the Lease (a 409 means someone else wrote it since).
   */
  private async tryFastPath(now: number, signal: AbortSignal, beforeWrite: BeforeWrite): Promise<boolean> {
    const observed = this.observation;
    if (!this.leading || observed === undefined || observed.at + this.leaseDurationMs <= now) return false;
    const record = renewedRecord(observed.record, this.identity, Math.round(this.leaseDurationMs / 1000), now);
    try {
      this.wrote(await this.lock.update(record, this.resourceVersion, signal, beforeWrite), now);
      return true;
    } catch (err) {
      if (err instanceof LeaseDeadlineError || signal.aborted) throw err;
      this.log.debug('optimistic lease renewal failed; reading the lease', { error: apiErrorInfo(err).message });
      return false;
    }
  }

  /** Our write landed: it is what we observe now, and (while leading) the end of a renewal interval. */
  private wrote(written: LeaseState, at: number): void {
    this.resourceVersion = written.resourceVersion;
    this.observation = observe(written.record, at);
    if (this.leading) {
      const intervalMs = at - this.lastRenewAt;
      this.observeRenewInterval(intervalMs);
      // A round was missed: say so, with how long the event loop stalled, before the deadline makes it a loss.
      if (intervalMs > 2 * this.retryPeriodMs) {
        this.log.warn('lease renewed late', {
          intervalMs: Math.round(intervalMs),
          renewDeadlineMs: this.renewDeadlineMs,
          ...this.stallField(),
        });
      }
    }
    this.lastRenewAt = at;
    this.reportLeader();
  }

  private logFailure(err: unknown, attemptAt: number): void {
    if (err instanceof LeaseDeadlineError) {
      this.log.warn('lease request not sent: past its deadline', {
        sinceLastRenewalMs: Math.round(this.clock.now() - this.lastRenewAt),
        attemptMs: Math.round(this.clock.now() - attemptAt),
        ...this.stallField(),
      });
      return;
    }
    const info = apiErrorInfo(err);
    const fields = { code: info.code, reason: info.reason, error: info.message };
    // 409: another candidate wrote first; expected during a race and retried next round.
    if (info.code === 409) this.log.debug('lease acquire/renew conflict', fields);
    else this.log.warn('lease acquire/renew failed', fields);
  }

  private stallField(): { eventLoopStallMs?: number } {
    return this.eventLoopStallMs ? { eventLoopStallMs: Math.round(this.eventLoopStallMs()) } : {};
  }

  private async release(held: LeaderElectionRecord): Promise<void> {
    // Not tied to the stop signal: releasing is what stopping asks for.
    const { signal, cancel } = this.deadlineSignal(this.clock.now() + this.renewDeadlineMs, false);
    try {
      await this.lock.update(releasedRecord(held, this.clock.now()), this.resourceVersion, signal);
      this.log.info('released leader lease');
    } catch (err) {
      this.log.warn('failed to release lease', { error: apiErrorInfo(err).message });
    } finally {
      cancel();
    }
  }

  private endLeadership(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.setStatus(false);
    this.leadController?.abort(new Error(`leadership ${why}`));
    this.invoke('onStoppedLeading', () => this.callbacks.onStoppedLeading());
  }

  private reportLeader(): void {
    const holder = this.observation?.record.holderIdentity ?? '';
    if (holder === '' || holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder !== this.identity) this.log.info('new leader elected', { leader: holder });
    const onNewLeader = this.callbacks.onNewLeader;
    if (onNewLeader) this.invoke('onNewLeader', () => onNewLeader(holder));
  }

  private invoke(what: string, fn: () => void | Promise<void>): void {
    try {
      const result = fn();
      if (result instanceof Promise) result.catch((err: unknown) => this.log.error(`${what} failed`, { error: err }));
    } catch (err) {
      this.log.error(`${what} threw`, { error: err });
    }
  }

  // An AbortSignal that fires at `deadline` on our clock (and, with `orStop`, when stopped).
  private deadlineSignal(deadline: number, orStop: boolean): { signal: AbortSignal; cancel: () => void } {
    const controller = new AbortController();
    const timer = this.clock.setTimer(Math.max(0, deadline - this.clock.now()), () =>
      controller.abort(new Error('lease request deadline exceeded')),
    );
    const signal = orStop ? AbortSignal.any([controller.signal, this.stopController.signal]) : controller.signal;
    return { signal, cancel: () => timer.cancel() };
  }
}
