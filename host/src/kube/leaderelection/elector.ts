// Lease-based leader election with client-go's timing: try to acquire every retryPeriod (jittered); once leading,
// renew every retryPeriod; if no renewal succeeds within renewDeadline, leadership is lost (onStoppedLeading;
// the CCM then exits non-zero, as upstream does). The deadlines are on our own clock and every request of a
// round is aborted at the round's deadline, so a hung request cannot keep us "leading" on a stale lease.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { apiErrorInfo } from '../client/errors.ts';
import { type Clock, realClock, sleep } from '../clock.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import type { LeaseLock } from './lease-lock.ts';
import { decide, type LeaderElectionRecord, type Observation, observe, releasedRecord } from './record.ts';
import { alpha } from '../../metrics/stability.ts';

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
  /** The `name` label of leader_election_master_status (upstream: the lease name). */
  name?: string;
  registry?: Registry;
  clock?: Clock;
  logger?: Logger;
  random?: () => number;
}

export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** Upstream's HealthzAdaptor timeout for the leaderElection check. */
export const DEFAULT_MAX_TOLERABLE_EXPIRED_LEASE_MS = 20_000;
const JITTER_FACTOR = 1.2;

/** `hostname_<uuid>`, unique per process like upstream's identity. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

const statusGauges = new WeakMap<Registry, Gauge<'name'>>();
/** leader_election_master_status (component-base's client-go leader election metrics). */
export function masterStatus(registry: Registry): Gauge<'name'> {
  let gauge = statusGauges.get(registry);
  if (!gauge) {
    gauge = new Gauge({
      name: 'leader_election_master_status',
      help: alpha(
        'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates ' +
          "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      ),
      labelNames: ['name'] as const,
      registers: [registry],
    });
    statusGauges.set(registry, gauge);
  }
  return gauge;
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
    const gauge = options.registry ? masterStatus(options.registry) : undefined;
    const labels = { name: options.name ?? options.lock.description.split('/').pop() ?? '' };
    this.setStatus = (leading) => gauge?.set(labels, leading ? 1 : 0);
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
      const deadline = this.clock.now() + this.renewDeadlineMs;
      let renewed = false;
      while (!this.stopped && this.clock.now() < deadline) {
        renewed = await this.tryAcquireOrRenew(deadline);
        if (renewed || this.stopped) break;
        await sleep(this.clock, Math.min(this.retryPeriodMs, Math.max(0, deadline - this.clock.now())), stop);
      }
      if (this.stopped) break;
      if (!renewed) {
        this.log.error('failed to renew lease: leadership lost', { renewDeadlineMs: this.renewDeadlineMs });
        this.endLeadership('lost');
        return;
      }
    }
    // Stopped while leading: step down first (isLeader() false), then give the Lease away.
    const held = this.observation?.record;
    this.endLeadership('stopped');
    if (this.releaseOnCancel && held && held.holderIdentity === this.identity) await this.release(held);
  }

  /** One attempt; never throws. Requests are aborted at `deadline`. */
  private async tryAcquireOrRenew(deadline: number): Promise<boolean> {
    const now = this.clock.now();
    const { signal, cancel } = this.deadlineSignal(deadline, true);
    try {
      const current = await this.lock.get(signal);
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
      if (decision.action === 'wait') return false;
      const written =
        decision.action === 'create'
          ? await this.lock.create(decision.record, signal)
          : await this.lock.update(decision.record, this.resourceVersion, signal);
      this.resourceVersion = written.resourceVersion;
      this.observation = observe(written.record, now);
      this.lastRenewAt = now;
      this.reportLeader();
      return true;
    } catch (err) {
      const info = apiErrorInfo(err);
      const fields = { code: info.code, reason: info.reason, error: info.message };
      // 409: another candidate wrote first; expected during a race and retried next round.
      if (info.code === 409) this.log.debug('lease acquire/renew conflict', fields);
      else this.log.warn('lease acquire/renew failed', fields);
      return false;
    } finally {
      cancel();
    }
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
