// Answers that ask to be retried (429 or 5xx with Retry-After), as client-go's rest client handles them: the rule
// (retry-after.ts) and KubeClient.request against a local server that answers from a script.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { KubeApiError } from '../../../host/src/kube/client/errors.ts';
import { MAX_RETRIES, retryAfterSeconds } from '../../../host/src/kube/client/retry-after.ts';
import { createKlogLogger } from '../../../host/src/log/logger.ts';
import { FakeClock } from '../../support/fake-clock.ts';

describe('retryAfterSeconds', () => {
  const answer = (statusCode: number, retryAfter?: string | string[]) => ({
    statusCode,
    headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  });

  it('asks for a retry on a 429 or any 5xx that carries whole seconds', () => {
    expect(retryAfterSeconds(answer(429, '1'))).toBe(1);
    expect(retryAfterSeconds(answer(500, '0'))).toBe(0);
    expect(retryAfterSeconds(answer(503, '+2'))).toBe(2);
    expect(retryAfterSeconds(answer(599, '30'))).toBe(30);
    // strconv.Atoi takes a sign; a negative wait is no wait.
    expect(retryAfterSeconds(answer(429, '-5'))).toBe(0);
    // Go's Header.Get: the first of repeated fields.
    expect(retryAfterSeconds(answer(429, ['3', '9']))).toBe(3);
  });

  it('asks for none without Retry-After, with a value that is not whole seconds, or on another status', () => {
    expect(retryAfterSeconds(answer(429))).toBeUndefined();
    expect(retryAfterSeconds(answer(503))).toBeUndefined();
    for (const value of ['', ' 1', '1.5', '1s', 'Wed, 21 Oct 2015 07:28:00 GMT', '0x10', '1234567890123456']) {
      expect(retryAfterSeconds(answer(429, value)), value).toBeUndefined();
    }
    for (const status of [200, 301, 400, 404, 409, 428, 499]) {
      expect(retryAfterSeconds(answer(status, '1')), String(status)).toBeUndefined();
    }
  });
});

interface Scripted {
  status: number;
  retryAfter?: string;
  body?: unknown;
}

describe('KubeClient.request with Retry-After answers', () => {
  let server: Server;
  let base: string;
  let script: Scripted[] = [];
  const received: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', body });
        const next = script.shift() ?? { status: 200, body: { kind: 'Status', status: 'Success' } };
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (next.retryAfter !== undefined) headers['retry-after'] = next.retryAfter;
        res.writeHead(next.status, headers);
        res.end(JSON.stringify(next.body ?? { kind: 'Status', code: next.status, reason: 'TooManyRequests' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    script = [];
    received.length = 0;
  });

  const credentials = () => ({
    server: base,
    authHeaders: () => Promise.resolve({ authorization: 'Bearer t' }),
    transport: () => Promise.resolve({ tls: {} }),
  });

  function client(options: { timeoutMs?: number; logged?: string[]; mayRetry?: () => boolean } = {}) {
    const clock = new FakeClock();
    const registry = new Registry();
    const logger =
      options.logged === undefined
        ? undefined
        : createKlogLogger({ format: 'json', verbosity: 4, write: (l) => options.logged?.push(l) });
    const c = new KubeClient(credentials(), {
      clock,
      registry,
      qps: 1_000,
      burst: 1_000,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.mayRetry !== undefined ? { mayRetry: options.mayRetry } : {}),
      ...(logger !== undefined ? { logger } : {}),
    });
    return { c, clock, registry };
  }

  const counter = async (registry: Registry, name: string) =>
    (await registry.getSingleMetric(name)?.get())?.values.map((v) => ({ labels: v.labels, value: v.value })) ?? [];
  /** How many times requests waited on the rate limiter (the histogram's count). */
  const limiterWaits = async (registry: Registry) =>
    (await registry.getSingleMetric('rest_client_rate_limiter_duration_seconds')?.get())?.values.find(
      (v) => (v as { metricName?: string }).metricName === 'rest_client_rate_limiter_duration_seconds_count',
    )?.value;

  it('sends the request again after each wait the answers ask for, body and all, and resolves with the last', async () => {
    script = [
      { status: 429, retryAfter: '1' },
      { status: 503, retryAfter: '2' },
      { status: 200, body: { kind: 'Service', metadata: { name: 'a' } } },
    ];
    const logged: string[] = [];
    const { c, clock, registry } = client({ logged });
    let checks = 0;
    const done = c.request<{ metadata: { name: string } }>({
      method: 'PATCH',
      path: '/api/v1/namespaces/d/services/a/status',
      body: { metadata: { finalizers: ['x'] } },
      contentType: 'application/merge-patch+json',
      // The lease fence is asked again before every attempt.
      beforeWrite: () => {
        checks++;
        return undefined;
      },
    });
    await expect.poll(() => clock.timerCount).toBe(1);
    expect(received).toHaveLength(1);
    // Nothing goes out before the wait is over: its timer is still pending (a positive sign, not a race).
    await clock.advance(999);
    expect(clock.timerCount).toBe(1);
    expect(received).toHaveLength(1);
    await clock.advance(1);
    await expect.poll(() => received.length).toBe(2);
    await expect.poll(() => clock.timerCount).toBe(1);
    await clock.advance(2_000);
    await expect(done).resolves.toEqual({ kind: 'Service', metadata: { name: 'a' } });
    expect(received.map((r) => r.body)).toEqual(Array(3).fill('{"metadata":{"finalizers":["x"]}}'));
    expect(received.every((r) => r.method === 'PATCH' && r.url === '/api/v1/namespaces/d/services/a/status')).toBe(
      true,
    );
    const host = new URL(base).host;
    expect(checks).toBe(3);
    // client-go's counting: every attempt after the first, by that attempt's own answer.
    expect(await counter(registry, 'rest_client_request_retries_total')).toEqual([
      { labels: { code: '503', verb: 'PATCH', host }, value: 1 },
      { labels: { code: '200', verb: 'PATCH', host }, value: 1 },
    ]);
    // Each attempt is a request of its own in rest_client_requests_total, and waited on the rate limiter.
    const requests = await counter(registry, 'rest_client_requests_total');
    expect(requests.map((r) => [r.labels['code'], r.value])).toEqual([
      ['429', 1],
      ['503', 1],
      ['200', 1],
    ]);
    expect(await limiterWaits(registry)).toBe(3);
    const records = logged.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['v'] === 4);
    expect(records.map(({ msg, verb, retryAfter, attempt }) => ({ msg, verb, retryAfter, attempt }))).toEqual([
      { msg: 'Got a Retry-After response', verb: 'PATCH', retryAfter: '1s', attempt: 1 },
      { msg: 'Got a Retry-After response', verb: 'PATCH', retryAfter: '2s', attempt: 2 },
    ]);
  });

  it('fails at once on an answer that asks for no retry', async () => {
    for (const answer of [{ status: 500 }, { status: 409, retryAfter: '1' }, { status: 429, retryAfter: 'soon' }]) {
      script = [answer, { status: 200 }];
      received.length = 0;
      const { c, clock } = client();
      const error = await c.request({ path: '/api/v1/nodes' }).catch((e: unknown) => e);
      expect(error, JSON.stringify(answer)).toBeInstanceOf(KubeApiError);
      expect((error as KubeApiError).code).toBe(answer.status);
      expect(received).toHaveLength(1);
      expect(clock.timerCount).toBe(0);
    }
  });

  it("gives up after client-go's 10 retries with the last answer's error", async () => {
    expect(MAX_RETRIES).toBe(10);
    script = Array.from({ length: 12 }, () => ({ status: 429, retryAfter: '0' }));
    const { c, registry } = client();
    const error = await c.request({ path: '/api/v1/nodes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe(429);
    expect(received).toHaveLength(11);
    const retries = await counter(registry, 'rest_client_request_retries_total');
    expect(retries.map((r) => [r.labels['code'], r.value])).toEqual([['429', 10]]);
  });

  it("does not wait past the request's own timeout: the answer stands", async () => {
    script = [
      { status: 429, retryAfter: '1' },
      { status: 429, retryAfter: '30' },
    ];
    // The client's default (60 s) would allow the second wait; the request's 30 s, one second of it spent, does not.
    const { c, clock } = client();
    const done = c.request({ path: '/api/v1/nodes', timeoutMs: 30_000 }).catch((e: unknown) => e);
    await expect.poll(() => clock.timerCount).toBe(1);
    await clock.advance(1_000);
    const error = await done;
    expect((error as KubeApiError).code).toBe(429);
    expect(received).toHaveLength(2);
    expect(clock.timerCount).toBe(0);
  });

  it('an abort during the wait ends the request with the abort, sending nothing more', async () => {
    script = [{ status: 503, retryAfter: '5' }];
    const { c, clock, registry } = client();
    const controller = new AbortController();
    const done = c.request({ path: '/api/v1/nodes', signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => clock.timerCount).toBe(1);
    controller.abort(new Error('stopping'));
    expect(await done).toEqual(new Error('stopping'));
    expect(received).toHaveLength(1);
    expect(clock.timerCount).toBe(0);
    expect(await limiterWaits(registry)).toBe(1);
  });

  it('sends no retry once its controller may no longer lead (mayRetry false after the wait)', async () => {
    script = [{ status: 429, retryAfter: '1' }];
    let leading = true;
    const { c, clock } = client({ mayRetry: () => leading });
    const done = c.request({ method: 'PATCH', path: '/api/v1/nodes/n', body: {} }).catch((e: unknown) => e);
    await expect.poll(() => clock.timerCount).toBe(1);
    leading = false;
    await clock.advance(1_000);
    expect(((await done) as KubeApiError).code).toBe(429);
    expect(received).toHaveLength(1);
  });

  it('retries a request whose successful answer is not read (ignoreResponse)', async () => {
    script = [{ status: 503, retryAfter: '0' }];
    const { c } = client();
    await expect(
      c.request({ method: 'PATCH', path: '/api/v1/nodes/n/status', body: {}, ignoreResponse: true }),
    ).resolves.toBeUndefined();
    expect(received).toHaveLength(2);
  });
});
