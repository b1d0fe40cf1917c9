// Who held the Lease when, from the Lease itself: polled often enough to see every renewal (the replicas renew every
// retry period, 1 s; a poll every 200 ms), so each holder's tenure is known to the renewal. A holder leads from its
// acquireTime until its last renewal plus the lease duration, or until it released the Lease, whichever is first.
import type { V1Lease } from '@kubernetes/client-node';

export interface Tenure {
  holder: string;
  from: number;
  /** Last renewal seen plus the lease duration (or the release); grows while the holder renews. */
  until: number;
}

const POLL_MS = 200;
const ms = (t: Date | string | undefined): number => (t === undefined ? 0 : new Date(t).getTime());

export class LeaseHistory {
  readonly tenures: Tenure[] = [];
  /** When the last poll succeeded (ms since the epoch): tenures are known up to about then. */
  lastPollAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #read: () => Promise<V1Lease>;

  /** `read` fetches the Lease (kube-system/cloud-controller-manager in a run). */
  constructor(read: () => Promise<V1Lease>) {
    this.#read = read;
  }

  start(): void {
    const tick = async (): Promise<void> => {
      try {
        const asked = Date.now();
        this.observe(await this.#read());
        this.lastPollAt = asked;
      } catch {
        // Not there yet, or the apiserver is restarting: nobody can renew meanwhile either.
      }
      if (!this.#stopped) this.#timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  observe(lease: V1Lease): void {
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const last = this.tenures.at(-1);
    if (holder === '') {
      // Released: the tenure ends at the release (its renewTime).
      if (last && last.until > ms(spec.renewTime)) last.until = Math.max(last.from, ms(spec.renewTime));
      return;
    }
    const from = ms(spec.acquireTime);
    const until = ms(spec.renewTime) + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (last && last.holder === holder && last.from === from) {
      last.until = Math.max(last.until, until);
      return;
    }
    this.tenures.push({ holder, from, until });
  }

  /** The identity leading at `at` ('' when nobody did). */
  leaderAt(at: number): string {
    for (let i = this.tenures.length - 1; i >= 0; i--) {
      const t = this.tenures[i]!;
      if (t.from <= at && at <= t.until) return t.holder;
    }
    return '';
  }

  /** Whether `holder` led at `at` by the Lease. */
  led(holder: string, at: number): boolean {
    return this.tenures.some((t) => t.holder === holder && t.from <= at && at <= t.until);
  }
}
