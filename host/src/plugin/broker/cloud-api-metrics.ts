// The cloud API as every provider's plugin uses it, measured where each HTTP request passes: the broker. Modelled on
// client-go's rest_client_* metrics (requests by code, method and host; latency by method and host), in the
// wasm_ccm_cloud_api_ namespace, plus what a cloud's rate limiting shows (429s, Retry-After) and the requests the
// broker itself sent again. Label values stay few: `host` is an allow-listed host[:port] (no other request is
// sent), `method` one of the HTTP methods (others count as OTHER), `code` the status or <error>.
import type { Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';
import { CounterVec, HistogramVec } from '../../metrics/vec.ts';

export interface CloudApiMetrics {
  /** One request sent: its status, or undefined when no answer came; `retryAfter` the answer's Retry-After. */
  request(method: string, host: string, status: number | undefined, seconds: number, retryAfter?: string): void;
  /** The broker sent a request again on its own (`reason`: session_renewed, after a 401 to a login's session). */
  retried(host: string, reason: string): void;
  /** A login of the host's for a credential (a login entry, or an AWS entry's temporary credentials) ended. */
  login(credential: string, ok: boolean): void;
}

export const noopCloudApiMetrics: CloudApiMetrics = { request: () => {}, retried: () => {}, login: () => {} };

// rest_client_request_duration_seconds' buckets: cloud APIs answer in the same range as an apiserver.
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const RETRY_AFTER_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 600];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const TOO_MANY_REQUESTS = 429;
const SERVICE_UNAVAILABLE = 503;

interface Family {
  requests: CounterVec;
  duration: HistogramVec;
  throttled: CounterVec;
  retryAfter: HistogramVec;
  retries: CounterVec;
  logins: CounterVec;
}

const families = new WeakMap<Registry, Family>();

function familyFor(registry: Registry): Family {
  const existing = families.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const family: Family = {
    requests: new CounterVec({
      name: 'wasm_ccm_cloud_api_requests_total',
      help: alpha('HTTP requests plugins made to their cloud, by provider, host, method and status code.'),
      labelNames: ['provider', 'host', 'method', 'code'],
      registers,
    }),
    duration: new HistogramVec({
      name: 'wasm_ccm_cloud_api_request_duration_seconds',
      help: alpha('Latency of HTTP requests plugins made to their cloud, until the whole answer arrived.'),
      labelNames: ['provider', 'host', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    throttled: new CounterVec({
      name: 'wasm_ccm_cloud_api_throttled_responses_total',
      help: alpha('Answers by which a cloud throttled a plugin: 429, or 503 with Retry-After, by provider and host.'),
      labelNames: ['provider', 'host', 'code'],
      registers,
    }),
    retryAfter: new HistogramVec({
      name: 'wasm_ccm_cloud_api_retry_after_seconds',
      help: alpha('The wait a cloud asked for in the Retry-After header of its answers, by provider and host.'),
      labelNames: ['provider', 'host'],
      buckets: RETRY_AFTER_BUCKETS,
      registers,
    }),
    retries: new CounterVec({
      name: 'wasm_ccm_cloud_api_request_retries_total',
      help: alpha('Requests the host sent to a cloud again on its own, by provider, host and reason.'),
      labelNames: ['provider', 'host', 'reason'],
      registers,
    }),
    logins: new CounterVec({
      name: 'wasm_ccm_cloud_api_logins_total',
      help: alpha(
        "Logins the host made for a plugin's credentials (sessions, AWS temporary credentials), by provider, credential and result.",
      ),
      labelNames: ['provider', 'credential', 'result'],
      registers,
    }),
  };
  families.set(registry, family);
  return family;
}

/** Retry-After in seconds: delay-seconds, or an HTTP date (RFC 9110 10.2.3); undefined when neither. */
export function retryAfterSeconds(value: string, now = Date.now()): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The metrics of the plugin serving `provider` (read at each request: the name is known once the module says it). */
export function cloudApiMetrics(registry: Registry | undefined, provider: () => string): CloudApiMetrics {
  if (registry === undefined) return noopCloudApiMetrics;
  const f = familyFor(registry);
  return {
    request(method, host, status, seconds, retryAfter) {
      const name = provider();
      const verb = METHODS.has(method) ? method : 'OTHER';
      f.requests.withLabelValues(name, host, verb, status === undefined ? '<error>' : String(status)).inc();
      f.duration.withLabelValues(name, host, verb).observe(seconds);
      if (status === undefined) return;
      const asked = retryAfter === undefined ? undefined : retryAfterSeconds(retryAfter);
      if (status === TOO_MANY_REQUESTS || (status === SERVICE_UNAVAILABLE && asked !== undefined)) {
        f.throttled.withLabelValues(name, host, String(status)).inc();
      }
      if (asked !== undefined) f.retryAfter.withLabelValues(name, host).observe(asked);
    },
    retried(host, reason) {
      f.retries.withLabelValues(provider(), host, reason).inc();
    },
    login(credential, ok) {
      f.logins.withLabelValues(provider(), credential, ok ? 'success' : 'failure').inc();
    },
  };
}
