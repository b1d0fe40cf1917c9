// The broker signs requests to an awsSigV4 credential's hosts as they go on the wire (a server recomputing the
// signature from what it received gets the same one), on both broker paths, and the answer never shows the plugin
// the secret key, the Authorization header or the signature.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { REDACTED } from '../../../host/src/plugin/broker/redact.ts';
import { SigV4Signer } from '../../../host/src/plugin/broker/sigv4-signer.ts';
import { readAnswerFrame, requestFrame } from './support/frames.ts';
import type { Route, SeenRequest, TestServer } from './support/http-servers.ts';
import { SIGV4_KEY as KEY, type SigV4Broker, startSigV4Broker } from './support/sigv4-broker.ts';

const BODY = 'Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3AName';

// Echoes every request header back, as headers and in the body (an API that reflects its request).
const echo: Route = (req, res) => {
  for (const [name, value] of Object.entries(req.headers)) res.setHeader(`x-echo-${name}`, String(value));
  res.end(JSON.stringify(req.headers));
};

let env: SigV4Broker;
let server: TestServer;
let broker: HttpBroker;

beforeAll(async () => {
  env = await startSigV4Broker({ '/echo': echo });
  ({ server, broker } = env);
});

afterAll(() => env.close());

const pluginHeaders = {
  'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
  Authorization: 'AWS4-HMAC-SHA256 plugin-made',
  'X-Amz-Date': '19700101T000000Z',
};

async function viaJson(url: string): Promise<string> {
  const request = { method: 'POST', url, headers: pluginHeaders, body: BODY, timeoutMs: 0 };
  const answer = await broker.handle(new TextEncoder().encode(JSON.stringify(request)), AbortSignal.timeout(5000));
  return new TextDecoder().decode(answer);
}

async function viaBytes(url: string): Promise<string> {
  const head = { method: 'POST', url, headers: pluginHeaders, timeoutMs: 0 };
  const frame = requestFrame(head, new TextEncoder().encode(BODY));
  const answer = readAnswerFrame(await broker.handleBytes(frame, AbortSignal.timeout(5000)));
  return JSON.stringify(answer.head) + answer.body.toString('utf8');
}

// What a verifier does: sign again what it received (the signed headers only) at the request's own date.
async function resign(seen: SeenRequest): Promise<string | undefined> {
  const authorization = String(seen.headers.authorization);
  const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of signedNames) if (name !== 'x-amz-date') headers[name] = String(seen.headers[name]);
  const date = String(seen.headers['x-amz-date']).replace(
    /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
    '$1-$2-$3T$4:$5:$6Z',
  );
  const signed = await new SigV4Signer(KEY, { region: 'us-east-1', service: 'ec2' }).sign(
    { method: seen.method, url: new URL(`http://${server.host}${seen.target}`), headers, body: seen.raw },
    new Date(date),
  );
  return signed.headers.authorization;
}

describe('SigV4 in the broker', () => {
  it.each([
    ['ccm_http', viaJson],
    ['ccm_http_bytes', viaBytes],
  ])('signs the request as sent and redacts the signature from the answer (%s)', async (_path, ask) => {
    const answer = await ask(server.url('/echo?b=%7e&a=1'));
    const seen = server.seen.at(-1) as SeenRequest;
    const authorization = String(seen.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE000000001\/\d{8}\/us-east-1\/ec2\/aws4_request, /,
    );
    expect(authorization).toContain('SignedHeaders=accept-encoding;content-type;host;x-amz-content-sha256;x-amz-date,');
    expect(seen.headers['x-amz-date']).not.toBe(pluginHeaders['X-Amz-Date']);
    expect(seen.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(BODY).digest('hex'));
    // The query went out canonically encoded, and the signature covers exactly what arrived.
    expect(seen.target).toBe('/echo?b=~&a=1');
    expect(await resign(seen)).toBe(authorization);

    const signature = /Signature=([0-9a-f]{64})/.exec(authorization)?.[1] as string;
    expect(answer).not.toContain(signature);
    expect(answer).not.toContain(KEY.secretAccessKey);
    // The whole Authorization value is a secret: it is what a replay within the signature's 15 minutes needs.
    expect(answer).toContain(`"x-echo-authorization":"${REDACTED}"`);
  });

  it.each([
    'X-Amz-Signature=0123abcd',
    'X-Amz-Credential=AKIAOTHER%2F20260101%2Fus-east-1%2Fec2%2Faws4_request',
    'X-Amz-Algorithm=AWS4-HMAC-SHA256',
    'X-Amz-Date=20260101T000000Z',
    'X-Amz-SignedHeaders=host',
    'X-Amz-Security-Token=other-token',
    'X-Amz-Expires=300',
    // Spelled otherwise: AWS reads names case-sensitively, but a proxy or another verifier may not.
    'x-amz-signature=0123abcd',
    'X-Amz-%53ignature=0123abcd',
  ])("refuses the plugin's own presigning query parameter %s beside the host's signature", async (parameter) => {
    const before = server.seen.length;
    const answer = JSON.parse(await viaJson(server.url(`/echo?Action=DescribeInstances&${parameter}`))) as {
      error?: { code: string; message: string };
    };
    const name = decodeURIComponent(parameter.split('=')[0] as string);
    expect(answer.error).toEqual({
      code: 'Forbidden',
      message: `request to ${server.host} refused: the host signs it, and the plugin's query parameter ${name} would be a second signature's`,
    });
    expect(server.seen.length).toBe(before);
  });

  it('answers a Network error for a query it cannot sign, and sends nothing', async () => {
    const before = server.seen.length;
    const answer = JSON.parse(await viaJson(server.url('/echo?a=%E1%88'))) as {
      error?: { code: string; message: string };
    };
    expect(answer.error?.code).toBe('Network');
    expect(answer.error?.message).toMatch(/malformed percent-escape/);
    expect(server.seen.length).toBe(before);
  });
});
