// Who changed what, and when: every successful write to the cloud API, with the caller the request named. A CCM's
// HTTP broker sends its replica's leader-election identity (CALLER_HEADER), so a test can tell a change made by the
// leader from one made by a replica that had lost the Lease.
import type { CloudOp } from './ops.ts';

/** The header wasm-ccm's broker sets on every plugin request (host/src/plugin/broker/http-broker.ts). */
export const CALLER_HEADER = 'x-kubernetes-leader-election-identity';

export interface Mutation {
  /** When the request arrived (ms since the epoch): before any injected latency, as the caller sent it. */
  at: number;
  op: CloudOp;
  /** The CALLER_HEADER value, '' when the request had none. */
  caller: string;
  /** Method and path, e.g. "DELETE /v1/load-balancers/kubernetes-ns-web". */
  target: string;
  status: number;
}

export class MutationLog {
  #items: Mutation[] = [];

  record(mutation: Mutation): void {
    this.#items.push(mutation);
  }

  /** Copies of the mutations recorded since the last reset, oldest first. */
  list(): Mutation[] {
    return this.#items.map((m) => ({ ...m }));
  }

  reset(): void {
    this.#items = [];
  }
}
