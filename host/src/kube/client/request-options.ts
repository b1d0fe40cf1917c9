// The options of KubeClient and of its requests (client.ts).
import type { Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Logger } from '../../log/logger.ts';
import type { HttpMethod } from './http-method.ts';

export interface KubeClientOptions {
  /** Sustained requests per second to the apiserver (upstream --kube-api-qps, default 20). */
  qps?: number;
  /** Requests allowed in a burst above qps (upstream --kube-api-burst, default 30). */
  burst?: number;
  registry?: Registry;
  clock?: Clock;
  userAgent?: string;
  /** Per-request timeout for non-watch requests (default 60 s). */
  timeoutMs?: number;
  /**
   * Asked before a request is sent again after a Retry-After wait (retry-after.ts): false ends it with the answer it
   * has. A controller's client is given its lease's freshness: a controller that may no longer lead sends no retry.
   */
  mayRetry?: () => boolean;
  /** Where each response is logged at -v=6 and each Retry-After retry at -v=4, as client-go logs them. */
  logger?: Logger;
}

/** The request a metered exchange sent, once it is built: its URL for the -v=6 response line. */
export interface Sent {
  url: string;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestExtra {
  body?: string;
  contentType?: string;
  headersTimeout?: number;
  bodyTimeout?: number;
}

export interface RequestOptions {
  method?: HttpMethod;
  /** Absolute API path, e.g. /api/v1/nodes or /apis/coordination.k8s.io/v1/namespaces/x/leases/y. */
  path: string;
  query?: Query;
  /** Serialized as JSON. */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * The caller has no use for a successful answer: its body is dropped unparsed and the request resolves to
   * undefined (an error answer is still read for KubeApiError). Saves parsing a whole object per status patch.
   */
  ignoreResponse?: boolean;
  /**
   * Asked synchronously right before the request's bytes are written, after the rate limiter's wait and any connect:
   * an Error fails the request with nothing sent. For a request that must not go out late (a lease renewal past its
   * deadline: after the process stalls, the limiter's overdue timer can run before the one that would abort it).
   */
  beforeWrite?: () => Error | undefined;
}
