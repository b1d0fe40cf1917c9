// The errors a Provider's methods reject with, as upstream k8s.io/cloud-provider's sentinels: controllers branch on
// them with the is* helpers (or instanceof), never on message text.

export type ProviderErrorCode =
  'InstanceNotFound' | 'NotImplemented' | 'ImplementedElsewhere' | 'Retry' | 'Invalid' | 'Internal' | 'Timeout';

/** Where an error came from, for messages and logs. */
export interface ProviderErrorContext {
  provider?: string;
  method?: string;
}

export abstract class ProviderError extends Error {
  abstract readonly code: ProviderErrorCode;
  readonly provider: string | undefined;
  readonly method: string | undefined;
  constructor(message: string, context: ProviderErrorContext = {}) {
    super(context.provider && context.method ? `${context.provider}.${context.method}: ${message}` : message);
    this.provider = context.provider;
    this.method = context.method;
  }
}

/** The instance behind a node does not exist (cloudprovider.InstanceNotFound). */
export class InstanceNotFoundError extends ProviderError {
  override name = 'InstanceNotFoundError';
  readonly code = 'InstanceNotFound';
}

/** The provider does not implement this (cloudprovider.NotImplemented). */
export class NotImplementedError extends ProviderError {
  override name = 'NotImplementedError';
  readonly code = 'NotImplemented';
}

/** Another component handles it: load balancer ensure/update only (cloudprovider.ImplementedElsewhere). */
export class ImplementedElsewhereError extends ProviderError {
  override name = 'ImplementedElsewhereError';
  readonly code = 'ImplementedElsewhere';
}

/**
 * The delays a RetryError may ask for (plugin-sdk/ABI.md, Error codes). The delay replaces the controllers' backoff
 * (5 s doubling to 300 s for Services), so a provider answering Retry with a tiny delay would have its key synced in
 * a loop: 1 s is the floor. A day's delay would leave a Service unsynced for that long, and a delay above 2^31 - 1 ms
 * makes Node fire the timer after 1 ms instead: 1 hour is the ceiling, above any cloud's rate-limit window.
 */
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 3600;

/** Try again after a fixed delay (api.RetryError): the service controller honours it instead of its backoff. */
export class RetryError extends ProviderError {
  override name = 'RetryError';
  readonly code = 'Retry';
  /** The delay asked for, within RETRY_AFTER_MIN_SECONDS..RETRY_AFTER_MAX_SECONDS (NaN counts as the minimum). */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, context: ProviderErrorContext = {}) {
    super(message, context);
    this.retryAfterSeconds = Number.isNaN(retryAfterSeconds)
      ? RETRY_AFTER_MIN_SECONDS
      : Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, retryAfterSeconds));
  }
}

/** The request is wrong (for example a bad Service annotation); the message names what. */
export class InvalidError extends ProviderError {
  override name = 'InvalidError';
  readonly code = 'Invalid';
}

/** Anything else: the provider failed, answered nonsense, or crashed. */
export class InternalError extends ProviderError {
  override name = 'InternalError';
  readonly code = 'Internal';
}

/** The provider did not answer within the call's deadline. */
export class TimeoutError extends ProviderError {
  override name = 'TimeoutError';
  readonly code = 'Timeout';
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError;
}
export function isInstanceNotFound(err: unknown): err is InstanceNotFoundError {
  return err instanceof InstanceNotFoundError;
}
export function isNotImplemented(err: unknown): err is NotImplementedError {
  return err instanceof NotImplementedError;
}
export function isImplementedElsewhere(err: unknown): err is ImplementedElsewhereError {
  return err instanceof ImplementedElsewhereError;
}
export function isRetry(err: unknown): err is RetryError {
  return err instanceof RetryError;
}
