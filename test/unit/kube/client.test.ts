// KubeClient's transport against a local HTTP server: the QPS limiter, rest_client_* metrics, raw JSON requests,
// patch Content-Types, error parsing, and watch decoding. (Behaviour against the real apiserver: test/e2e/kube.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { createKlogLogger } from '../../../host/src/log/logger.ts';
import type { ApiserverCredentials } from '../../../host/src/kube/client/credentials.ts';
import { apiErrorInfo, isConflict, isGone, isNotFound, KubeApiError } from '../../../host/src/kube/client/errors.ts';
import { patchOptions, typedApi } from '../../../host/src/kube/client/typed-api.ts';
import { decodeEvent, readWatchEvents, WatchDecodeError } from '../../../host/src/kube/client/watch.ts';
import { FakeClock, flushMicrotasks } from '../../support/fake-clock.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base: string;
let handler: Handler = (_req, res) => res.end('{}');
const seen: { method: string; url: string; contentType: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: base, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'tok' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

describe('KubeClient at -v=6', () => {
  const logged = (verbosity: number) => {
    const lines: string[] = [];
    const logger = createKlogLogger({ format: 'json', verbosity, write: (l) => lines.push(l) });
    return { lines, client: new KubeClient(kubeConfig(), { logger }) };
  };

  it("logs each response as client-go's round trippers do, raw and typed requests alike", async () => {
    handler = (req, res) =>
      req.url?.startsWith('/api/v1/nodes')
        ? json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] })
        : json(res, 404, { kind: 'Status', reason: 'NotFound', code: 404 });
    const { lines, client } = logged(6);
    await client.request({ path: '/api/v1/nodes', query: { limit: 5 } });
    await expect(client.request({ path: '/api/v1/namespaces/x' })).rejects.toThrow(KubeApiError);
    await typedApi(client, CoreV1Api).listNode();
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map(({ msg, v, verb, url, status }) => ({ msg, v, verb, url, status }))).toEqual([
      { msg: 'Response', v: 6, verb: 'GET', url: `${base}/api/v1/nodes?limit=5`, status: '200 OK' },
      { msg: 'Response', v: 6, verb: 'GET', url: `${base}/api/v1/namespaces/x`, status: '404 Not Found' },
      { msg: 'Response', v: 6, verb: 'GET', url: `${base}/api/v1/nodes`, status: '200 OK' },
    ]);
    expect(records.every((r) => typeof r['milliseconds'] === 'number')).toBe(true);
  });

  it('logs nothing below -v=6', async () => {
    handler = (_req, res) => json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] });
    const { lines, client } = logged(5);
    await client.request({ path: '/api/v1/nodes' });
    // The positive sign the request went out: the server saw it.
    expect(seen.at(-1)?.url).toBe('/api/v1/nodes');
    expect(lines).toEqual([]);
  });
});

describe('KubeClient transport', () => {
  it('holds requests to qps after the burst, for raw and typed clients alike', async () => {
    handler = (_req, res) => json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] });
    const clock = new FakeClock();
    const client = new KubeClient(kubeConfig(), { qps: 20, burst: 30, clock });
    let finished = 0;
    const core = typedApi(client, CoreV1Api);
    const all = Array.from({ length: 34 }, (_, i) =>
      (i % 2 === 0 ? client.request({ path: '/api/v1/nodes' }) : core.listNode()).then(() => finished++),
    );
    // Real I/O completes on its own; only time on the fake clock gates the limiter. `n` requests have finished and
    // the rest wait on the limiter's timers, which only the fake clock fires: nothing more can slip through.
    const until = async (n: number) => {
      await expect.poll(() => finished, { timeout: 3_000 }).toBe(n);
      await expect.poll(() => clock.timerCount).toBe(34 - n);
    };
    await until(30);
    await clock.advance(49);
    expect(clock.timerCount).toBe(4);
    expect(finished).toBe(30);
    await clock.advance(1); // 20 qps: one token per 50 ms
    await until(31);
    await clock.advance(150);
    await until(34);
    await Promise.all(all);
  });

  it('records rest_client_requests_total{code,method,host} and request/limiter durations', async () => {
    handler = (req, res) =>
      req.url?.includes('missing')
        ? json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'nope' })
        : json(res, 200, {});
    const registry = new Registry();
    const client = new KubeClient(kubeConfig(), { registry });
    await client.request({ path: '/api/v1/nodes/a' });
    await expect(client.request({ path: '/api/v1/nodes/missing' })).rejects.toThrow('nope');
    const host = new URL(base).host;
    const requests = await registry.getSingleMetric('rest_client_requests_total')?.get();
    expect(requests?.values).toEqual(
      expect.arrayContaining([
        { value: 1, labels: { code: '200', method: 'GET', host } },
        { value: 1, labels: { code: '404', method: 'GET', host } },
      ]),
    );
    const text = await registry.metrics();
    expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 2`);
    expect(text).toContain(`rest_client_rate_limiter_duration_seconds_count{verb="GET",host="${host}"} 2`);
  });

  it('counts a request without a response as code "<error>"', async () => {
    const registry = new Registry();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = new KubeClient(kc, { registry });
    const err = await client.request({ path: '/api/v1/nodes' }).catch((e: unknown) => e);
    expect(apiErrorInfo(err).code).toBeUndefined();
    const requests = await registry.getSingleMetric('rest_client_requests_total')?.get();
    expect(requests?.values[0]?.labels.code).toBe('<error>');
  });

  it('gives up on a request whose answer does not come within its timeout, and on one whose body stalls', async () => {
    const hung: ServerResponse[] = [];
    handler = (_req, res) => hung.push(res);
    const client = new KubeClient(kubeConfig(), { timeoutMs: 200 });
    const started = Date.now();
    await expect(client.request({ path: '/api/v1/nodes' })).rejects.toThrow(/timeout/i);
    await expect(client.request({ path: '/api/v1/nodes', timeoutMs: 100 })).rejects.toThrow(/timeout/i);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":');
      hung.push(res);
    };
    await expect(client.request({ path: '/api/v1/nodes' })).rejects.toThrow(/timeout/i);
    expect(Date.now() - started).toBeLessThan(3_000);
    const aborted = new AbortController();
    const pending = client.request({ path: '/api/v1/nodes', timeoutMs: 60_000, signal: aborted.signal });
    aborted.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    for (const res of hung) res.destroy();
    handler = (_req, res) => res.end('{}');
  });

  it('drops a successful answer unparsed when the caller ignores it, and still parses an error answer', async () => {
    const client = new KubeClient(kubeConfig());
    handler = (_req, res) => res.end('not json at all');
    await expect(
      client.patch('/api/v1/nodes/a/status', {}, 'merge', { ignoreResponse: true }),
    ).resolves.toBeUndefined();
    await expect(client.request({ path: '/api/v1/nodes/a' })).rejects.toThrow(SyntaxError);
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', reason: 'NotFound', message: 'nodes "a" not found', code: 404 }));
    };
    const err = await client.patch('/api/v1/nodes/a/status', {}, 'merge', { ignoreResponse: true }).catch((e) => e);
    expect(isNotFound(err)).toBe(true);
    handler = (_req, res) => res.end('{}');
  });

  it('sends JSON bodies, query parameters, the bearer token and patch Content-Types', async () => {
    handler = (_req, res) => json(res, 200, { ok: true });
    const client = new KubeClient(kubeConfig());
    seen.length = 0;
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces/default/events',
      body: { a: 1 },
      query: { x: 'y', skip: undefined },
    });
    await client.patch('/api/v1/nodes/n', { metadata: { labels: { a: 'b' } } }, 'merge');
    await client.patch('/api/v1/nodes/n', { metadata: {} }, 'strategic-merge');
    await typedApi(client, CoreV1Api).patchNode(
      { name: 'n', body: { metadata: { labels: { a: 'b' } } } },
      patchOptions('merge'),
    );
    expect(seen.map((s) => [s.method, s.url, s.contentType])).toEqual([
      ['POST', '/api/v1/namespaces/default/events?x=y', 'application/json'],
      ['PATCH', '/api/v1/nodes/n', 'application/merge-patch+json'],
      ['PATCH', '/api/v1/nodes/n', 'application/strategic-merge-patch+json'],
      ['PATCH', '/api/v1/nodes/n', 'application/merge-patch+json'],
    ]);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ a: 1 });
  });

  it('parses Status bodies of typed-client ApiExceptions (raw text for 409/422/429) and of raw requests', async () => {
    const conflict = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'the object has been modified',
      reason: 'Conflict',
      code: 409,
    };
    const throttled = {
      kind: 'Status',
      apiVersion: 'v1',
      message: 'slow down',
      reason: 'TooManyRequests',
      code: 429,
      details: { retryAfterSeconds: 3 },
    };
    handler = (req, res) => {
      if (req.url?.includes('conflict')) json(res, 409, conflict);
      else if (req.url?.includes('throttled')) json(res, 429, throttled);
      else if (req.url?.includes('html')) json(res, 502, '<html>bad gateway</html>');
      else json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'nodes "x" not found' });
    };
    const client = new KubeClient(kubeConfig());
    const core = typedApi(client, CoreV1Api);
    const typed409 = await core
      .replaceNode({ name: 'conflict', body: { metadata: { name: 'conflict' } } })
      .catch((e: unknown) => e);
    expect(apiErrorInfo(typed409)).toEqual({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
    expect(isConflict(typed409)).toBe(true);
    const typed429 = await core.readNode({ name: 'throttled' }).catch((e: unknown) => e);
    expect(apiErrorInfo(typed429)).toEqual({
      code: 429,
      reason: 'TooManyRequests',
      message: 'slow down',
      retryAfterSeconds: 3,
    });
    const typed404 = await core.readNode({ name: 'x' }).catch((e: unknown) => e);
    expect(isNotFound(typed404)).toBe(true);
    const raw = await client.request({ path: '/api/v1/nodes/conflict' }).catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(KubeApiError);
    expect(apiErrorInfo(raw)).toMatchObject({ code: 409, reason: 'Conflict' });
    const html = await client.request({ path: '/html' }).catch((e: unknown) => e);
    expect(apiErrorInfo(html)).toMatchObject({ code: 502, reason: 'InternalError' });
    expect(apiErrorInfo(html).message).toContain('bad gateway');
    expect(apiErrorInfo(new Error('socket hang up'))).toEqual({
      code: undefined,
      reason: 'Unknown',
      message: 'socket hang up',
    });
    expect(isGone({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' })).toBe(true);
  });

  it('streams watch events split across chunks and closes the connection when the consumer stops', async () => {
    let closed = false;
    handler = (req, res) => {
      expect(req.url).toContain('watch=true');
      expect(req.url).toContain('resourceVersion=5');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const line = JSON.stringify({
        type: 'ADDED',
        object: { kind: 'Node', metadata: { name: 'ä-node', resourceVersion: '6' } },
      });
      const bytes = Buffer.from(`${line}\n`);
      res.write(bytes.subarray(0, 10));
      res.write(bytes.subarray(10, 60)); // lines arrive split mid-JSON
      res.write(
        Buffer.concat([
          bytes.subarray(60),
          Buffer.from(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } })}\n`),
        ]),
      );
      res.on('close', () => (closed = true));
    };
    const client = new KubeClient(kubeConfig());
    const controller = new AbortController();
    const events = await client.watch('/api/v1/nodes', { resourceVersion: '5' }, controller.signal);
    const got: string[] = [];
    for await (const e of events) {
      got.push(`${e.type}:${e.object.metadata?.resourceVersion}`);
      if (e.type === 'BOOKMARK') break;
    }
    expect(got).toEqual(['ADDED:6', 'BOOKMARK:9']);
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
  });

  it('rejects a refused watch with the Status it carries', async () => {
    handler = (_req, res) =>
      json(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'nodes is forbidden' });
    const client = new KubeClient(kubeConfig());
    const err = await client.watch('/api/v1/nodes', {}, new AbortController().signal).catch((e: unknown) => e);
    expect(apiErrorInfo(err)).toEqual({ code: 403, reason: 'Forbidden', message: 'nodes is forbidden' });
  });
});

describe('KubeClient credentials', () => {
  it("reuses the kubeconfig's auth headers for 10 s, and reads them again after a 401", async () => {
    const auth: string[] = [];
    let status = 200;
    handler = (req, res) => {
      auth.push(req.headers.authorization ?? '');
      json(res, status, status === 200 ? {} : { kind: 'Status', code: status, reason: 'Unauthorized' });
    };
    const clock = new FakeClock();
    const kc = kubeConfig();
    const client = new KubeClient(kc, { clock });
    await client.request({ path: '/a' });
    (kc.users[0] as { token?: string }).token = 'rotated';
    await client.request({ path: '/b' });
    status = 401;
    await expect(client.request({ path: '/c' })).rejects.toMatchObject({ code: 401 });
    status = 200;
    await client.request({ path: '/d' });
    (kc.users[0] as { token?: string }).token = 'rotated-again';
    await clock.advance(10_001);
    await client.request({ path: '/e' });
    expect(auth).toEqual(['Bearer tok', 'Bearer tok', 'Bearer tok', 'Bearer rotated', 'Bearer rotated-again']);
  });
});

describe('KubeClient.forController', () => {
  it('has its own token bucket and user agent, and shares connections and credentials with its parent', async () => {
    const agents: string[] = [];
    let status = 200;
    handler = (req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      json(res, status, status === 200 ? {} : { kind: 'Status', code: status, reason: 'Unauthorized' });
    };
    let token = 'tok';
    const reads = { auth: 0, transport: 0 };
    const credentials: ApiserverCredentials = {
      server: base,
      authHeaders: async () => {
        reads.auth++;
        return { authorization: `Bearer ${token}` };
      },
      transport: async () => {
        reads.transport++;
        return { tls: {} };
      },
    };
    const clock = new FakeClock();
    const parent = new KubeClient(credentials, { qps: 1, burst: 1, clock, userAgent: 'wasm-ccm' });
    const nodes = parent.forController('node-controller');
    // The parent spends its only token; the controller's bucket is still full.
    await parent.request({ path: '/parent' });
    await nodes.request({ path: '/nodes' });
    const waiting = parent.request({ path: '/parent-again' });
    let done = false;
    void waiting.then(() => (done = true));
    await flushMicrotasks();
    expect(done).toBe(false);
    await clock.advance(1_000);
    await waiting;
    expect(agents).toEqual(['wasm-ccm', 'wasm-ccm/node-controller', 'wasm-ccm']);
    // One pool and one read of the headers for both clients.
    expect(reads).toEqual({ auth: 1, transport: 1 });
    // A 401 answered to the controller's client makes the shared headers be read again, for the parent too.
    token = 'rotated';
    status = 401;
    await expect(nodes.request({ path: '/refused' })).rejects.toMatchObject({ code: 401 });
    status = 200;
    await clock.advance(1_000);
    await parent.request({ path: '/after' });
    expect(reads).toEqual({ auth: 2, transport: 1 });
  });
});

describe('KubeClient connection pool', () => {
  it('sends a request that waited on the limiter across a pool replacement on the new pool', async () => {
    handler = (_req, res) => json(res, 200, {});
    const clock = new FakeClock();
    // One token per 10 minutes: the second request waits past the pool's 5-minute age.
    const client = new KubeClient(kubeConfig(), { qps: 1 / 600, burst: 1, clock });
    await client.request({ path: '/first' });
    const waiting = client.request({ path: '/waited' });
    await flushMicrotasks();
    await clock.advance(5 * 60_000 + 1);
    // Another request now replaces the aged pool (and closes the old one) before it, too, waits for a token.
    const later = client.request({ path: '/later' });
    await flushMicrotasks();
    await clock.advance(5 * 60_000);
    await expect(waiting).resolves.toEqual({});
    await clock.advance(10 * 60_000);
    await expect(later).resolves.toEqual({});
  });

  it('does the same for a typed client request', async () => {
    handler = (_req, res) => json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] });
    const clock = new FakeClock();
    const client = new KubeClient(kubeConfig(), { qps: 1 / 600, burst: 1, clock });
    await client.request({ path: '/first' });
    const waiting = typedApi(client, CoreV1Api).listNode();
    await flushMicrotasks();
    await clock.advance(5 * 60_000 + 1);
    const later = client.request({ path: '/later' });
    await flushMicrotasks();
    await clock.advance(5 * 60_000);
    await expect(waiting).resolves.toMatchObject({ kind: 'NodeList' });
    await clock.advance(10 * 60_000);
    await expect(later).resolves.toMatchObject({ kind: 'NodeList' });
  });
});

describe('watch decoding', () => {
  function stream(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(typeof c === 'string' ? new TextEncoder().encode(c) : c);
        controller.close();
      },
    });
  }

  it('reassembles lines and multi-byte characters split across chunks, and a final line without newline', async () => {
    const bytes = new TextEncoder().encode(
      '{"type":"ADDED","object":{"metadata":{"name":"ü"}}}\n\n{"type":"DELETED","object":{}}',
    );
    const cut = bytes.indexOf(0xc3) + 1; // inside the two-byte ü
    const out: string[] = [];
    for await (const e of readWatchEvents(stream([bytes.subarray(0, cut), bytes.subarray(cut)]))) {
      out.push(`${e.type}:${e.object.metadata?.name ?? ''}`);
    }
    expect(out).toEqual(['ADDED:ü', 'DELETED:']);
  });

  it('fails on an undecodable or malformed event instead of skipping it', async () => {
    const consume = async (text: string) => {
      for await (const _ of readWatchEvents(stream([text]))) void _;
    };
    await expect(consume('{"type":"ADDED","object":{}}\nnot json\n')).rejects.toBeInstanceOf(WatchDecodeError);
    expect(() => decodeEvent('{"type":"WEIRD","object":{}}')).toThrow(WatchDecodeError);
    expect(() => decodeEvent('{"type":"ADDED"}')).toThrow(WatchDecodeError);
    expect(() => decodeEvent('[]')).toThrow(WatchDecodeError);
  });
});

describe('KubeClient construction', () => {
  it('refuses a kubeconfig without a current cluster', () => {
    expect(() => new KubeClient(new KubeConfig())).toThrow(/no current cluster/);
  });

  it('validates qps and burst', () => {
    expect(() => new KubeClient(kubeConfig(), { qps: 0 })).toThrow(/qps/);
    expect(() => new KubeClient(kubeConfig(), { burst: 0 })).toThrow(/burst/);
  });

  it('aborts a request whose signal fires while it waits for the limiter', async () => {
    const clock = new FakeClock();
    const client = new KubeClient(kubeConfig(), { qps: 1, burst: 1, clock });
    handler = (_req, res) => json(res, 200, {});
    await client.request({ path: '/a' });
    const controller = new AbortController();
    const pending = client.request({ path: '/b', signal: controller.signal }).catch((e: unknown) => e);
    await flushMicrotasks();
    controller.abort(new Error('cancelled'));
    expect(String(await pending)).toContain('cancelled');
  });

  it('asks beforeWrite once the limiter lets a request go; an Error refuses it with nothing sent', async () => {
    const clock = new FakeClock();
    const client = new KubeClient(kubeConfig(), { qps: 1, burst: 1, clock });
    handler = (_req, res) => json(res, 200, {});
    await client.request({ path: '/first' });
    // Waits 1 s for a token; by then the request is past its deadline (0.5 s from now).
    const deadline = clock.now() + 500;
    const asked: number[] = [];
    const beforeWrite = (): Error | undefined => {
      asked.push(clock.now());
      return clock.now() >= deadline ? new Error('past its deadline') : undefined;
    };
    const late = client.request({ path: '/late', beforeWrite }).catch((e: unknown) => e);
    await clock.advance(1_000);
    expect(String(await late)).toContain('past its deadline');
    expect(asked).toEqual([deadline + 500]);
    await clock.advance(1_000);
    await client.request({ path: '/after', beforeWrite: () => undefined });
    expect(seen.map((r) => r.url)).toContain('/after');
    expect(seen.map((r) => r.url)).not.toContain('/late');
  });
});
