// client-go's rule for answers that ask to be sent again (rest/with_retry.go): a 429, or any 5xx, that carries a
// Retry-After of whole seconds is sent again after that wait, through the client's rate limiter again, up to
// MAX_RETRIES times; the last answer stands. The apiserver answers so when API Priority and Fairness rejects a
// request (429, Retry-After: 1) and while it is overloaded or shutting down (5xx): failing at once would turn a
// one-second wait into a failed sync and the workqueue's backoff (5 s and more for the service controller).
//
// The request's timeout is the budget of all its attempts and waits, as client-go's Request.timeout bounds its retry
// loop: a wait that would end past it is not made, and the answer stands (a Retry-After of an hour never holds a
// controller's worker). A controller's client stops retrying once its controller stops (KubeClientOptions.mayRetry),
// as upstream's process, which exits when it loses its lease, sends nothing more. Counted as client-go counts them:
// every attempt in rest_client_requests_total, every attempt after the first in rest_client_request_retries_total
// with that attempt's own status. One difference: rest_client_request_duration_seconds observes each attempt (client-go
// observes a request once, its waits included).
import type { CollectedResponse } from '../../net/collect.ts';

/** client-go's default (rest.Config has no setting for it; NewRequest takes 10). */
export const MAX_RETRIES = 10;

// strconv.Atoi's syntax: an optional sign, then decimal digits (a value too large for a wait is caught by the bound).
const SECONDS = /^[+-]?[0-9]{1,15}$/;

/**
 * The seconds `response` asks the client to wait before it sends the request again (negative values count as 0), or
 * undefined when it asks for no retry: another status, no Retry-After, or one that is not whole seconds (an HTTP date
 * too, as client-go).
 */
export function retryAfterSeconds(response: Pick<CollectedResponse, 'statusCode' | 'headers'>): number | undefined {
  const { statusCode } = response;
  if (statusCode !== 429 && statusCode < 500) return undefined;
  const header = response.headers['retry-after'];
  // Go's Header.Get: the first of repeated fields.
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !SECONDS.test(value)) return undefined;
  return Math.max(0, Number(value));
}

/** What a retried request needs to know, and to do, between attempts. */
export interface RetrySchedule {
  /** Milliseconds now (the client's clock). */
  now(): number;
  /** Waits `ms` before retry number `retry` (1-based); rejects when the request is aborted meanwhile. */
  sleep(ms: number, retry: number): Promise<void>;
  /** Asked after each wait: false ends the request with the answer it has (its controller is stopping). */
  mayRetry(): boolean;
  /** Told of each attempt after the first, once it ended: its answer's status, or '<error>' when none came. */
  onRetried(code: string): void;
}

/**
 * Sends with `attempt` (given the milliseconds left of `timeoutMs`, the request's whole budget) until an answer asks
 * for no retry, MAX_RETRIES retries were made, or a wait would end past the budget; resolves with the last answer.
 */
export async function withRetryAfter(
  attempt: (remainingMs: number) => Promise<CollectedResponse>,
  timeoutMs: number,
  schedule: RetrySchedule,
): Promise<CollectedResponse> {
  const deadline = schedule.now() + timeoutMs;
  let response = await attempt(timeoutMs);
  for (let retry = 1; retry <= MAX_RETRIES; retry++) {
    const seconds = retryAfterSeconds(response);
    // Less than a millisecond left for the attempt itself is no time at all.
    if (seconds === undefined || schedule.now() + seconds * 1000 >= deadline) break;
    await schedule.sleep(seconds * 1000, retry);
    if (!schedule.mayRetry()) break;
    try {
      response = await attempt(Math.max(1, deadline - schedule.now()));
    } catch (err) {
      schedule.onRetried('<error>');
      throw err;
    }
    schedule.onRetried(String(response.statusCode));
  }
  return response;
}
