// An in-memory Lease with optimistic concurrency, shared by several candidates, each with its own fault knobs.
import { KubeApiError } from '../../../../host/src/kube/client/errors.ts';
import type { Clock } from '../../../../host/src/kube/clock.ts';
import type { BeforeWrite, LeaseLock, LeaseState } from '../../../../host/src/kube/leaderelection/lease-lock.ts';
import type { LeaderElectionRecord } from '../../../../host/src/kube/leaderelection/record.ts';
import type { TokenBucket } from '../../../../host/src/kube/token-bucket.ts';

export class MemoryLease {
  state: LeaseState | undefined;
  private rv = 0;
  writes: LeaderElectionRecord[] = [];

  write(record: LeaderElectionRecord): LeaseState {
    this.state = { record: { ...record }, resourceVersion: String(++this.rv) };
    this.writes.push({ ...record });
    return structuredClone(this.state);
  }

  /** `clock` times what the lock sends (`sent`). */
  lockFor(clock?: Clock): CandidateLock {
    return new CandidateLock(this, clock);
  }
}

export type Verb = 'GET' | 'POST' | 'PUT';

export class CandidateLock implements LeaseLock {
  readonly description = 'kube-system/cloud-controller-manager';
  /** Requests reject as if the apiserver were unreachable. */
  down = false;
  /** Requests never answer; only their abort signal ends them. */
  hang = false;
  /** The next update answers 409 after someone else's write. */
  conflictNext = false;
  /** A client-side rate limiter every request waits on first, then checks its signal, as KubeClient does. */
  limiter: TokenBucket | undefined;
  requests = 0;
  /** The request waiting on the limiter now, if any. */
  waitingOnLimiter: Verb | undefined;
  /** The requests that went out (past the limiter and the beforeWrite check), and when, by the lock's clock. */
  readonly sent: { verb: Verb; at: number }[] = [];

  private readonly lease: MemoryLease;
  private readonly clock: Clock | undefined;

  constructor(lease: MemoryLease, clock?: Clock) {
    this.lease = lease;
    this.clock = clock;
  }

  get(signal: AbortSignal, beforeWrite?: BeforeWrite): Promise<LeaseState | undefined> {
    return this.gate('GET', signal, beforeWrite, () =>
      this.lease.state ? structuredClone(this.lease.state) : undefined,
    );
  }

  create(record: LeaderElectionRecord, signal: AbortSignal, beforeWrite?: BeforeWrite): Promise<LeaseState> {
    return this.gate('POST', signal, beforeWrite, () => {
      if (this.lease.state) throw new KubeApiError({ code: 409, reason: 'AlreadyExists', message: 'exists' });
      return this.lease.write(record);
    });
  }

  update(
    record: LeaderElectionRecord,
    resourceVersion: string,
    signal: AbortSignal,
    beforeWrite?: BeforeWrite,
  ): Promise<LeaseState> {
    return this.gate('PUT', signal, beforeWrite, () => {
      if (this.conflictNext) {
        this.conflictNext = false;
        throw new KubeApiError({ code: 409, reason: 'Conflict', message: 'modified' });
      }
      if (this.lease.state?.resourceVersion !== resourceVersion) {
        throw new KubeApiError({ code: 409, reason: 'Conflict', message: 'modified' });
      }
      return this.lease.write(record);
    });
  }

  /** PUTs and POSTs that went out. */
  get writesSent(): { verb: Verb; at: number }[] {
    return this.sent.filter((s) => s.verb !== 'GET');
  }

  private async gate<T>(
    verb: Verb,
    signal: AbortSignal,
    beforeWrite: BeforeWrite | undefined,
    fn: () => T,
  ): Promise<T> {
    this.requests++;
    if (this.limiter !== undefined) {
      this.waitingOnLimiter = verb;
      await this.limiter.wait(signal).finally(() => (this.waitingOnLimiter = undefined));
      signal.throwIfAborted();
    }
    if (signal.aborted) throw new Error('aborted');
    const refusal = beforeWrite?.();
    if (refusal !== undefined) throw refusal;
    this.sent.push({ verb, at: this.clock?.now() ?? Number.NaN });
    if (this.down) throw new Error('connect ECONNREFUSED');
    if (this.hang) {
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    return fn();
  }
}
