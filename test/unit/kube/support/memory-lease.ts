// An in-memory Lease with optimistic concurrency, shared by several candidates, each with its own fault knobs.
import { KubeApiError } from '../../../../host/src/kube/client/errors.ts';
import type { LeaseLock, LeaseState } from '../../../../host/src/kube/leaderelection/lease-lock.ts';
import type { LeaderElectionRecord } from '../../../../host/src/kube/leaderelection/record.ts';

export class MemoryLease {
  state: LeaseState | undefined;
  private rv = 0;
  writes: LeaderElectionRecord[] = [];

  write(record: LeaderElectionRecord): LeaseState {
    this.state = { record: { ...record }, resourceVersion: String(++this.rv) };
    this.writes.push({ ...record });
    return structuredClone(this.state);
  }

  lockFor(): CandidateLock {
    return new CandidateLock(this);
  }
}

export class CandidateLock implements LeaseLock {
  readonly description = 'kube-system/cloud-controller-manager';
  /** Requests reject as if the apiserver were unreachable. */
  down = false;
  /** Requests never answer; only their abort signal ends them. */
  hang = false;
  /** The next update answers 409 after someone else's write. */
  conflictNext = false;
  requests = 0;

  private readonly lease: MemoryLease;

  constructor(lease: MemoryLease) {
    this.lease = lease;
  }

  get(signal: AbortSignal): Promise<LeaseState | undefined> {
    return this.gate(signal, () => (this.lease.state ? structuredClone(this.lease.state) : undefined));
  }

  create(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaseState> {
    return this.gate(signal, () => {
      if (this.lease.state) throw new KubeApiError({ code: 409, reason: 'AlreadyExists', message: 'exists' });
      return this.lease.write(record);
    });
  }

  update(record: LeaderElectionRecord, resourceVersion: string, signal: AbortSignal): Promise<LeaseState> {
    return this.gate(signal, () => {
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

  private gate<T>(signal: AbortSignal, fn: () => T): Promise<T> {
    this.requests++;
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    if (this.down) return Promise.reject(new Error('connect ECONNREFUSED'));
    if (this.hang) {
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
