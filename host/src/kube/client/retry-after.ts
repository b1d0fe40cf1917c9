// client-go's rule for answers that ask to be sent again (rest/with_retry.go): a 429, or any 5xx, that carries a
// Retry-After of whole seconds is sent again after that wait, through the client's rate limiter again, up to
// MAX_RETRIES times; the last answer stands. The apiserver answers so when API Priority and Fairness rejects a
// request (429, Retry-After: 1) and while it is overloaded or shutting down (5xx): failing at once would turn a
// one-second wait into a failed sync and the workqueue's backoff (5 s and more for the service controller).
//
// One bound client-go does not have: a wait that would end past the request's timeout (counted from its first
// attempt) is not made, and the answer stands. client-go bounds its waits only by the caller's context, and a
// Retry-After of an hour would hold a controller's worker for an hour.
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
  /** Waits `ms`; returns early when the request is aborted (the next attempt then fails with the abort). */
  sleep(ms: number): Promise<void>;
  /** Told before each wait: the answer that asked for it, its seconds, and which retry comes next (1-based). */
  onRetry(response: CollectedResponse, seconds: number, retry: number): void;
}

/**
 * Sends with `attempt` until an answer asks for no retry, MAX_RETRIES retries were made, or a wait would end past
 * `timeoutMs` after the first attempt started; resolves with the last answer.
 */
export async function withRetryAfter(
  attempt: () => Promise<CollectedResponse>,
  timeoutMs: number,
  schedule: RetrySchedule,
): Promise<CollectedResponse> {
  const deadline = schedule.now() + timeoutMs;
  let response = await attempt();
  for (let retry = 1; retry <= MAX_RETRIES; retry++) {
    const seconds = retryAfterSeconds(response);
    if (seconds === undefined || schedule.now() + seconds * 1000 > deadline) break;
    schedule.onRetry(response, seconds, retry);
    await schedule.sleep(seconds * 1000);
    response = await attempt();
  }
  return response;
}
