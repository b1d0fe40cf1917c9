// client-go's REST client metrics (k8s.io/client-go/tools/metrics as registered by component-base), per registry.
import type { Registry } from 'prom-client';
import { CounterVec, HistogramVec } from '../../metrics/vec.ts';
import { alpha } from '../../metrics/stability.ts';

export interface RestMetrics {
  /** A finished request: `code` is the HTTP status or "<error>" when no response arrived. */
  request(method: string, host: string, code: string, seconds: number): void;
  /** Time a request waited for the client-side rate limiter. */
  rateLimited(method: string, host: string, seconds: number): void;
  /** A request sent again because its answer (`code`) carried a Retry-After (retry-after.ts). */
  retry(method: string, host: string, code: string): void;
}

const noopRestMetrics: RestMetrics = { request: () => {}, rateLimited: () => {}, retry: () => {} };

// Upstream buckets for request latency and rate limiter latency.
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

const byRegistry = new WeakMap<Registry, RestMetrics>();

export function restMetrics(registry: Registry | undefined): RestMetrics {
  if (!registry) return noopRestMetrics;
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const requests = new CounterVec({
    name: 'rest_client_requests_total',
    help: alpha('Number of HTTP requests, partitioned by status code, method, and host.'),
    labelNames: ['code', 'method', 'host'],
    registers,
  });
  const duration = new HistogramVec({
    name: 'rest_client_request_duration_seconds',
    help: alpha('Request latency in seconds. Broken down by verb, and host.'),
    labelNames: ['verb', 'host'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const limiter = new HistogramVec({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: alpha('Client side rate limiter latency in seconds. Broken down by verb, and host.'),
    labelNames: ['verb', 'host'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const retries = new CounterVec({
    name: 'rest_client_request_retries_total',
    help: alpha('Number of request retries, partitioned by status code, verb, and host.'),
    labelNames: ['code', 'verb', 'host'],
    registers,
  });
  const metrics: RestMetrics = {
    request(method, host, code, seconds) {
      requests.withLabelValues(code, method, host).inc();
      duration.withLabelValues(method, host).observe(seconds);
    },
    rateLimited(method, host, seconds) {
      limiter.withLabelValues(method, host).observe(seconds);
    },
    retry(method, host, code) {
      retries.withLabelValues(code, method, host).inc();
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
