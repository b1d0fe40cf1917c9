// The lease fence: a replica whose leader lease is not fresh must not change the cloud, also from a plugin call that
// started while it was (a leader paused mid-call that wakes after another replica took over). A check when the broker
// takes the request is not enough: the request may then wait for the signer, for a free connection and for the
// connect, and the lease may go stale meanwhile. So a request that may change something (request-effect.ts) is
// checked three times: when the broker takes it, by a timer at the moment the lease stops being fresh (which aborts
// it if it is not on the wire by then), and synchronously right before its bytes are written to the socket (the
// HTTP/1.1 pool's beforeWrite hook), which is what makes the fence exact.
import { BrokerError } from './broker-error.ts';

export interface ReplicaGuard {
  /** Sent as REPLICA_IDENTITY_HEADER: the replica's leader-election identity. */
  identity: string;
  /**
   * How much longer (ms) the replica's leader lease stays fresh: 0 when it is not (not leading, or no renewal within
   * the renew deadline), Infinity without leader election. Asked before every request that may change something.
   */
  leaseFreshForMs: () => number;
}

/** The fence around one request that may change something, from the broker's check until its bytes are written. */
export class LeaseFence {
  readonly #replica: ReplicaGuard;
  /** `<METHOD> <host>`, and why the request may change something, for the refusal. */
  readonly #what: string;
  readonly #why: string;
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal;
  readonly #onOuterAbort = (): void => this.#controller.abort();
  #timer: NodeJS.Timeout | undefined;
  #expired = false;

  /**
   * Throws Forbidden when the lease is not fresh now. `what` is `<METHOD> <host>`, `why` the reason the request may
   * change something ('' for its method); `outer` aborts the request for other reasons.
   */
  constructor(replica: ReplicaGuard, what: string, why: string, outer: AbortSignal) {
    this.#replica = replica;
    this.#what = what;
    this.#why = why;
    this.#outer = outer;
    const freshMs = replica.leaseFreshForMs();
    if (!(freshMs > 0)) throw this.#refusal('');
    outer.addEventListener('abort', this.#onOuterAbort, { once: true });
    if (outer.aborted) this.#controller.abort();
    // setTimeout takes at most 2^31-1 ms (more fires at once): no timer for a lease fresh that long, or for good.
    if (freshMs < 2 ** 31 - 1) {
      this.#timer = setTimeout(() => {
        this.#expired = true;
        this.#controller.abort();
      }, Math.ceil(freshMs));
    }
  }

  /** Aborts at the outer signal, and when the lease stops being fresh before the request is on the wire. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The refusal when the lease went stale before the request was written; undefined otherwise. */
  get expiredError(): BrokerError | undefined {
    return this.#expired ? this.#refusal(' before the request went out') : undefined;
  }

  /**
   * For the pool's beforeWrite: undefined lets the bytes go (and the lease timer ends, since a request on the wire is
   * not taken back; the outer signal still aborts it: its timeout and the call's deadline hold until release()), an
   * error refuses them.
   */
  readonly beforeWrite = (): Error | undefined => {
    if (this.#expired || !(this.#replica.leaseFreshForMs() > 0)) return this.#refusal(' before the request went out');
    clearTimeout(this.#timer);
    return undefined;
  };

  /** Ends the timer and the outer signal's listener. */
  release(): void {
    clearTimeout(this.#timer);
    this.#outer.removeEventListener('abort', this.#onOuterAbort);
  }

  #refusal(when: string): BrokerError {
    const why = this.#why === '' ? '' : ` (it may change something: ${this.#why})`;
    return new BrokerError(
      'Forbidden',
      `${this.#what}: refused, this replica's leader lease is not fresh${when}${why}`,
    );
  }
}
