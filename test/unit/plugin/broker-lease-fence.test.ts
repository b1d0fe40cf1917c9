// The lease fence against a plugin trying to change the cloud from a replica that is not the fresh leader: it judges
// what a request does, not its method string (method overrides, bodies on GET, Query API actions in a GET), lets the
// AWS Query API's read POSTs through, and checks again right before the bytes go on the wire, so that a request which
// passed the first check and then waited (for a free connection) while the lease went stale never reaches the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import type { ReplicaGuard } from '../../../host/src/plugin/broker/lease-fence.ts';
import { type FramedAnswer, readAnswerFrame, requestFrame } from './support/frames.ts';
import { startServer, type TestServer } from './support/http-servers.ts';
import { type SigV4Broker, startSigV4Broker } from './support/sigv4-broker.ts';
import { testBroker } from './support/test-broker.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
const NOT_FRESH = "refused, this replica's leader lease is not fresh";

/** A lease whose freshness the test sets: `freshForMs(n)` makes it fresh for n ms from now; `lose()` ends it. */
function testLease(): ReplicaGuard & { freshForMs: (ms: number) => void; lose: () => void } {
  let until = 0;
  return {
    identity: 'replica-a_1',
    leaseFreshForMs: () => Math.max(0, until - performance.now()),
    freshForMs: (ms) => (until = performance.now() + ms),
    lose: () => (until = 0),
  };
}

async function send(
  broker: HttpBroker,
  method: string,
  url: string,
  body = '',
  headers: Record<string, string> = {},
): Promise<FramedAnswer> {
  const frame = requestFrame({ method, url, headers, timeoutMs: 0 }, Buffer.from(body));
  return readAnswerFrame(await broker.handleBytes(frame, AbortSignal.timeout(10_000)));
}

let api: TestServer;
let broker: HttpBroker;
const lease = testLease();
// Requests the server holds until the test lets them go: they keep every connection of the pool busy.
const held: Array<() => void> = [];

beforeAll(async () => {
  api = await startServer({
    '/echo': (req, res) => res.end(`${req.method} ${req.body}`),
    '/hold': (_req, res) => held.push(() => res.end('released')),
    '/never': () => undefined,
  });
  broker = testBroker([api.host], CredentialStore.empty(), {
    replica: lease,
    defaultTimeoutMs: 10_000,
    maxTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  broker.close();
  await api.close();
});

describe('the lease fence judges what a request does', () => {
  it.each(['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override', 'x-http-method-override'])(
    'refuses the method override %s, leader or not',
    async (header) => {
      lease.freshForMs(60_000);
      const before = api.seen.length;
      const answer = await send(broker, 'GET', api.url('/echo'), '', { [header]: 'POST' });
      expect(answer.head.error).toEqual({
        code: 'Forbidden',
        message: `GET ${api.host}: the ${header.toLowerCase()} header is refused (a server honoring it would run another method than GET)`,
      });
      // And without a replica at all.
      const plain = testBroker([api.host], CredentialStore.empty());
      try {
        expect((await send(plain, 'POST', api.url('/echo'), 'x', { [header]: 'DELETE' })).head.error?.code).toBe(
          'Forbidden',
        );
      } finally {
        plain.close();
      }
      expect(api.seen.length).toBe(before);
    },
  );

  it.each([
    ['a GET with a body', 'GET', '/echo', 'delete everything', /\(it may change something: it carries a body/],
    ['an OPTIONS with a body', 'OPTIONS', '/echo', '{}', /carries a body/],
    [
      'a GET of a mutating Query API action',
      'GET',
      '/echo?Action=TerminateInstances&InstanceId.1=i-1',
      '',
      /Action=TerminateInstances is not a read/,
    ],
    ['a POST', 'POST', '/echo', 'x', new RegExp(`${NOT_FRESH}$`)],
    ['a DELETE', 'DELETE', '/echo', '', new RegExp(`${NOT_FRESH}$`)],
  ])(
    'refuses %s while the lease is not fresh, and lets it through while it is',
    async (_what, method, path, body, why) => {
      lease.lose();
      const before = api.seen.length;
      const answer = await send(broker, method, api.url(path), body);
      expect(answer.head.error?.code).toBe('Forbidden');
      expect(answer.head.error?.message).toContain(`${method} ${api.host}: ${NOT_FRESH}`);
      expect(answer.head.error?.message).toMatch(why);
      expect(api.seen.length).toBe(before);
      lease.freshForMs(60_000);
      expect((await send(broker, method, api.url(path), body)).head.status).toBe(200);
      expect(api.seen.length).toBe(before + 1);
    },
  );

  it('lets reads through while the lease is not fresh', async () => {
    lease.lose();
    expect((await send(broker, 'GET', api.url('/echo?Action=DescribeInstances'))).body.toString()).toBe('GET ');
    expect((await send(broker, 'HEAD', api.url('/echo'))).head.status).toBe(200);
  });
});

describe("the AWS Query API's reads", () => {
  let aws: SigV4Broker;
  const awsLease = testLease();

  beforeAll(async () => {
    aws = await startSigV4Broker({ '/': (req, res) => res.end(`${req.method} ${req.body}`) }, { replica: awsLease });
  });

  afterAll(() => aws.close());

  it('lets a signed POST of Describe/Get/List through while not leading, and refuses the others', async () => {
    awsLease.lose();
    const url = aws.server.url('/');
    const describeBody = 'Action=DescribeInstances&Version=2016-11-15';
    expect((await send(aws.broker, 'POST', url, describeBody, FORM)).body.toString()).toBe(`POST ${describeBody}`);
    expect((await send(aws.broker, 'POST', url, 'Action=ListTagsForResource', FORM)).head.status).toBe(200);
    const seen = aws.server.seen.length;
    for (const [method, target, body, headers] of [
      ['POST', '/', 'Action=TerminateInstances&InstanceId.1=i-1', FORM],
      ['POST', '/', 'Action=DescribeInstances&Action=CreateVpc', FORM],
      ['POST', '/', 'Action=DescribeInstances', { 'content-type': 'application/json' }],
      ['GET', '/?Action=TerminateInstances&InstanceId.1=i-1', '', {}],
    ] as const) {
      const answer = await send(aws.broker, method, aws.server.url(target), body, headers);
      expect(answer.head.error?.message).toContain(NOT_FRESH);
    }
    expect(aws.server.seen.length).toBe(seen);
  });
});

describe('the lease fence at the wire', () => {
  // Every connection the broker may open to one origin, busy with a held request: the next request waits in line.
  const POOL_CONNECTIONS = 64;

  async function holdEveryConnection(): Promise<Promise<FramedAnswer>[]> {
    const seen = api.seen.length;
    const holders = Array.from({ length: POOL_CONNECTIONS }, () => send(broker, 'GET', api.url('/hold')));
    await expect.poll(() => api.seen.length - seen, { timeout: 10_000, interval: 10 }).toBe(POOL_CONNECTIONS);
    return holders;
  }

  async function release(holders: Promise<FramedAnswer>[]): Promise<void> {
    for (const let_go of held.splice(0)) let_go();
    for (const answer of await Promise.all(holders)) expect(answer.body.toString()).toBe('released');
  }

  it('aborts a waiting change when the lease stops being fresh, and it never reaches the server', async () => {
    lease.freshForMs(60_000);
    const holders = await holdEveryConnection();
    lease.freshForMs(300);
    const started = performance.now();
    const put = await send(broker, 'PUT', api.url('/echo'), 'late');
    // Ended by the fence's timer at the lease's end, not by the request's 10 s timeout.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(put.head.error).toEqual({
      code: 'Forbidden',
      message: `PUT ${api.host}: ${NOT_FRESH} before the request went out`,
    });
    await release(holders);
    expect(api.seen.filter((r) => r.method === 'PUT' && r.body === 'late')).toHaveLength(0);
  }, 30_000);

  it('refuses a waiting change whose lease ended early (leadership lost), right before writing it', async () => {
    lease.freshForMs(60_000);
    const holders = await holdEveryConnection();
    const put = send(broker, 'PUT', api.url('/echo'), 'after-loss');
    // The PUT passed the first check and waits for a connection; the replica then loses the lease, which no timer
    // knew about (it was fresh for another minute).
    await expect.poll(() => broker.connectionStats(api.url('/'))?.queued, { timeout: 5_000, interval: 5 }).toBe(1);
    lease.lose();
    await release(holders);
    expect((await put).head.error).toEqual({
      code: 'Forbidden',
      message: `PUT ${api.host}: ${NOT_FRESH} before the request went out`,
    });
    expect(api.seen.filter((r) => r.body === 'after-loss')).toHaveLength(0);
  }, 30_000);

  it('still ends a change already on the wire at its own timeout (the fence lets go of the timer only)', async () => {
    lease.freshForMs(60_000);
    const frame = requestFrame(
      { method: 'POST', url: api.url('/never'), headers: {}, timeoutMs: 300 },
      Buffer.from('x'),
    );
    const started = performance.now();
    const answer = readAnswerFrame(await broker.handleBytes(frame, AbortSignal.timeout(10_000)));
    expect(answer.head).toMatchObject({ error: { code: 'Timeout' } });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
