// Errors of the steps of a Service sync, worded as upstream words them.

import { errorMessage } from '../../util/error-message.ts';

/**
 * A failed step of a sync, worded as upstream's fmt.Errorf("...: %v", err): the cause's text only, not the cause
 * itself, so a RetryError from such a step is not honoured (Go's %v hides it from errors.As) and the Service
 * follows the queue's backoff, as upstream's does. Only EnsureLoadBalancer's error is wrapped with %w upstream.
 */
export class SyncStepError extends Error {
  override name = 'SyncStepError';
  readonly code = 'SERVICE_SYNC_STEP';
  constructor(step: string, err: unknown) {
    super(`${step}: ${errorMessage(err)}`);
  }
}

/** Runs one step; its failure becomes a SyncStepError. */
export async function step<T>(what: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw new SyncStepError(what, err);
  }
}
