// The host's reading of the instance metadata and container credentials answers, side by side with the AWS SDK's
// (@smithy/credential-provider-imds, the providers of the SDK for JavaScript v3): one canned answer, both clients,
// the same credentials and expiry; where they differ by design, the difference is listed with its reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromContainerMetadata, fromInstanceMetadata } from '@smithy/credential-provider-imds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromContainer, fromInstanceProfile } from '../../../host/src/plugin/broker/aws-credential-sources.ts';
import type { LoginExchange } from '../../../host/src/plugin/broker/login-flow.ts';

const HOUR = 3600_000;
const inAnHour = (): string => new Date(Date.now() + HOUR).toISOString().replace(/\.\d+Z$/, 'Z');
const fields = (extra: Record<string, unknown> = {}) => ({
  Code: 'Success',
  AccessKeyId: 'ASIAEXAMPLE',
  SecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  Token: 'IQoJb3JpZ2luX2VjEXAMPLE+/=',
  Expiration: inAnHour(),
  ...extra,
});

let body = '';
let server: Server;
let origin = '';

// Answers as the instance metadata service and a container credentials endpoint do, the credentials being `body`.
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    if (req.method === 'PUT' && path === '/latest/api/token') return void res.end('imds-token');
    if (path === '/latest/meta-data/iam/security-credentials/') return void res.end('node-role');
    if (path === '/latest/meta-data/iam/security-credentials/node-role' || path === '/creds') return void res.end(body);
    if (path === '/latest/meta-data/placement/region') return void res.end('us-east-1');
    if (path === '/latest/meta-data/placement/availability-zone') return void res.end('us-east-1a');
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const exchange: LoginExchange = async (request) => {
  const res = await fetch(request.url, { method: request.method, headers: request.headers });
  return { status: res.status, headers: {}, body: Buffer.from(await res.arrayBuffer()) };
};

interface Read {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: number;
}

async function sdkImds(): Promise<Read | string> {
  process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = origin;
  try {
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    const c = await fromInstanceMetadata({ timeout: 1000, maxRetries: 0, logger: silent })();
    return { ...c, expiration: c.expiration?.getTime() };
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  } finally {
    delete process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
  }
}

async function hostImds(): Promise<Read | string> {
  const settings = { source: 'instanceProfile' as const, region: 'us-east-1', instanceMetadataEndpoint: origin };
  return fromInstanceProfile(settings, {}, exchange).then(
    (c) => ({ ...c.key, expiration: c.expiration?.getTime() }),
    (err: Error) => `refused: ${err.message}`,
  );
}

async function sdkContainer(): Promise<Read | string> {
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `${origin}/creds`;
  try {
    const c = await fromContainerMetadata({ timeout: 1000, maxRetries: 0 })();
    return { ...c, expiration: c.expiration?.getTime() };
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  } finally {
    delete process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  }
}

async function hostContainer(): Promise<Read | string> {
  return fromContainer({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `${origin}/creds` }, exchange).then(
    (c) => ({ ...c.key, expiration: c.expiration?.getTime() }),
    (err: Error) => `refused: ${err.message}`,
  );
}

const refused = expect.stringMatching(/^refused: /);

describe.each([
  ['instance metadata', sdkImds, hostImds],
  ['container credentials', sdkContainer, hostContainer],
])('%s answers read by the SDK and by the host', (_, sdk, host) => {
  it.each([
    ['a full answer', () => fields()],
    ['fractional seconds', () => fields({ Expiration: new Date(Date.now() + HOUR).toISOString() })],
    ['an offset instead of Z', () => fields({ Expiration: inAnHour().replace('Z', '+00:00') })],
    [
      'more fields (LastUpdated, Type, AccountId)',
      () => fields({ LastUpdated: inAnHour(), Type: 'AWS-HMAC', AccountId: '123456789012' }),
    ],
    ['no Code (a container endpoint sends none)', () => ({ ...fields(), Code: undefined })],
  ])('agree on %s', async (_case, answer) => {
    body = JSON.stringify(answer());
    const ours = await host();
    expect(ours).toEqual(expect.objectContaining({ accessKeyId: 'ASIAEXAMPLE', sessionToken: fields().Token }));
    const theirs = (await sdk()) as Read;
    expect({ ...theirs, accountId: undefined }).toEqual({ ...(ours as Read), accountId: undefined });
  });

  it.each([
    ['no Token', () => ({ ...fields(), Token: undefined })],
    ['a number for AccessKeyId', () => fields({ AccessKeyId: 7 })],
    ['no JSON', () => 'not json'],
  ])('both refuse %s', async (_case, answer) => {
    const value = answer();
    body = typeof value === 'string' ? value : JSON.stringify(value);
    expect(await host()).toEqual(refused);
    expect(await sdk()).toEqual(refused);
  });

  // Differences by design: the host signs nothing with credentials it cannot tell the end of, or that say they failed.
  it('differ on an Expiration that is not a time: the SDK keeps an Invalid Date, the host refuses', async () => {
    body = JSON.stringify(fields({ Expiration: 'tomorrow' }));
    expect(await host()).toEqual(refused);
    expect(((await sdk()) as Read).expiration).toBeNaN();
  });

  it('differ on a Code other than Success: the SDK reads the fields, the host refuses', async () => {
    body = JSON.stringify(fields({ Code: 'AssumeRoleUnauthorizedAccess' }));
    expect(await host()).toMatch(/answered Code "AssumeRoleUnauthorizedAccess"/);
    expect(await sdk()).toEqual(expect.objectContaining({ accessKeyId: 'ASIAEXAMPLE' }));
  });
});
