// wasm_ccm_cloud_api_*: the broker counts and times each request it sends, by provider, host, method and code, and
// records a cloud's throttling (429, 503 with Retry-After) and the wait it asked for.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudApiMetrics, retryAfterSeconds } from '../../../host/src/plugin/broker/cloud-api-metrics.ts';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { freePort } from '../../../lab/process/index.ts';
import { startServer, type TestServer } from './support/http-servers.ts';
import { testBroker } from './support/test-broker.ts';

let api: TestServer;
let registry: Registry;
let broker: HttpBroker;
let closedHost = '';

async function ask(method: string, url: string): Promise<void> {
  const request = { method, url, headers: {}, body: '', timeoutMs: 0 };
  await broker.handle(new TextEncoder().encode(JSON.stringify(request)), new AbortController().signal);
}

async function value(name: string, labels: Record<string, string | number>): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

beforeAll(async () => {
  api = await startServer({
    '/ok': (_req, res) => res.end('{}'),
    '/throttled': (_req, res) => res.writeHead(429, { 'retry-after': '7' }).end(),
    '/busy': (_req, res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 120_000).toUTCString() }).end(),
    '/down': (_req, res) => res.writeHead(503).end(),
  });
  // A port nothing listens on: the request gets no answer.
  closedHost = `127.0.0.1:${await freePort()}`;
  registry = new Registry();
  broker = testBroker([api.host, closedHost], CredentialStore.empty(), {
    metrics: cloudApiMetrics(registry, () => 'east'),
  });
});

afterAll(async () => {
  broker.close();
  await api.close();
});

describe('cloud API metrics', () => {
  it('count requests by provider, host, method and code, and time them', async () => {
    await ask('GET', `http://${api.host}/ok`);
    await ask('GET', `http://${api.host}/ok`);
    await ask('delete', `http://${api.host}/ok`);
    await ask('GET', `http://${closedHost}/`);
    const labels = { provider: 'east', host: api.host };
    expect(await value('wasm_ccm_cloud_api_requests_total', { ...labels, method: 'GET', code: '200' })).toBe(2);
    expect(await value('wasm_ccm_cloud_api_requests_total', { ...labels, method: 'DELETE', code: '200' })).toBe(1);
    expect(await value('wasm_ccm_cloud_api_requests_total', { host: closedHost, method: 'GET', code: '<error>' })).toBe(
      1,
    );
    expect(await value('wasm_ccm_cloud_api_request_duration_seconds', { ...labels, method: 'GET', le: '+Inf' })).toBe(
      2,
    );
  });

  it('count throttling answers and the Retry-After they ask for; a 503 without it is no throttling', async () => {
    await ask('GET', `http://${api.host}/throttled`);
    await ask('GET', `http://${api.host}/busy`);
    await ask('GET', `http://${api.host}/down`);
    const labels = { provider: 'east', host: api.host };
    expect(await value('wasm_ccm_cloud_api_throttled_responses_total', { ...labels, code: '429' })).toBe(1);
    expect(await value('wasm_ccm_cloud_api_throttled_responses_total', { ...labels, code: '503' })).toBe(1);
    expect(await value('wasm_ccm_cloud_api_requests_total', { ...labels, code: '503' })).toBe(2);
    // 7 s and about 120 s: one in the 10 s bucket, both by 300 s.
    expect(await value('wasm_ccm_cloud_api_retry_after_seconds', { ...labels, le: 10 })).toBe(1);
    expect(await value('wasm_ccm_cloud_api_retry_after_seconds', { ...labels, le: 300 })).toBe(2);
  });

  it('read Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z'))).toBe(60);
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});
