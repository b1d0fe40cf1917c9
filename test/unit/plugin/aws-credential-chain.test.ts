// The AWS credential chain of awsSigV4 entries without key files: the entry's fields, each source's request and
// answer, the chain's order and its messages, expiry. The metadata services and STS are canned answers here (the e2e
// tests in test/e2e/aws/credentials.test.ts ask moto's).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { AwsCredentialFlow, CHAIN } from '../../../host/src/plugin/broker/aws-credential-flow.ts';
import type { AwsCredentialSettings } from '../../../host/src/plugin/broker/aws-credential-settings.ts';
import { parseJsonCredentials, parseStsCredentials } from '../../../host/src/plugin/broker/aws-credential-sources.ts';
import { CredentialFileError, parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import type { LoginExchange, LoginRequest, LoginResponse } from '../../../host/src/plugin/broker/login-flow.ts';
import { SessionKeeper } from '../../../host/src/plugin/broker/login-flow.ts';

const dir = mkdtempSync(join(tmpdir(), 'aws-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.parse('2026-11-27T10:00:00Z');
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION = 'IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN+/=';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjY20ifQ.c2ln';

function settings(fields: Partial<AwsCredentialSettings> = {}): AwsCredentialSettings {
  return { source: 'chain', region: 'us-east-1', ...fields };
}

const answer = (status: number, body: string): LoginResponse => ({ status, headers: {}, body: Buffer.from(body) });
const credentialsJson = (expiration: string, extra: object = {}) =>
  JSON.stringify({
    AccessKeyId: 'ASIAEXAMPLE',
    SecretAccessKey: SECRET,
    Token: SESSION,
    Expiration: expiration,
    ...extra,
  });
const stsAnswer = (expiration: string) =>
  `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIASTS</AccessKeyId>` +
  `<SecretAccessKey>${SECRET}</SecretAccessKey><SessionToken>${SESSION}</SessionToken><Expiration>${expiration}</Expiration>` +
  `</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`;

/** An exchange that answers by method and path, and keeps what it was asked. */
function exchange(routes: Record<string, LoginResponse | Error>): LoginExchange & { seen: LoginRequest[] } {
  const seen: LoginRequest[] = [];
  const fn = (request: LoginRequest): Promise<LoginResponse> => {
    seen.push(request);
    const route = routes[`${request.method} ${request.url.origin}${request.url.pathname}`];
    if (route === undefined || route instanceof Error)
      return Promise.reject(route ?? new Error('connect ECONNREFUSED'));
    return Promise.resolve(route);
  };
  return Object.assign(fn, { seen });
}

const IMDS = 'http://169.254.169.254';
const imdsRoutes = (expiration: string): Record<string, LoginResponse> => ({
  [`PUT ${IMDS}/latest/api/token`]: answer(200, 'imds-token'),
  [`GET ${IMDS}/latest/meta-data/iam/security-credentials/`]: answer(200, 'node-role\n'),
  [`GET ${IMDS}/latest/meta-data/iam/security-credentials/node-role`]: answer(
    200,
    credentialsJson(expiration, { Code: 'Success' }),
  ),
  [`GET ${IMDS}/latest/meta-data/placement/region`]: answer(200, 'us-east-1'),
  [`GET ${IMDS}/latest/meta-data/placement/availability-zone`]: answer(200, 'us-east-1b'),
});

function entryFile(awsSigV4: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ credentials: [{ name: 'aws', hosts: ['ec2.us-east-1.amazonaws.com'], awsSigV4, ...extra }] });
}

function problem(awsSigV4: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  try {
    parseCredentialFile(entryFile(awsSigV4, extra), join(dir, 'credentials.json'));
  } catch (err) {
    expect(err).toBeInstanceOf(CredentialFileError);
    return (err as Error).message;
  }
  return 'no error';
}

describe('awsSigV4 entries without key files', () => {
  it('default to the chain, with the environment filling in what the entry leaves out', () => {
    const [credential] = parseCredentialFile(entryFile({ region: 'us-east-1' }), join(dir, 'c.json'));
    expect(credential?.secret).toEqual({
      kind: 'awsSigV4',
      entry: { region: 'us-east-1', credentials: { source: 'chain', region: 'us-east-1' } },
    });
  });

  it('resolve the token file against the credentials file and keep the web identity fields', () => {
    const fields = {
      region: 'us-east-1',
      source: 'webIdentity',
      roleARN: 'arn:aws:iam::123456789012:role/ccm',
      webIdentityTokenFile: 'token',
      roleSessionName: 'ccm',
    };
    const [credential] = parseCredentialFile(entryFile(fields), join(dir, 'c.json'));
    expect(credential?.secret).toMatchObject({
      entry: {
        credentials: {
          source: 'webIdentity',
          roleARN: 'arn:aws:iam::123456789012:role/ccm',
          webIdentityTokenFile: join(dir, 'token'),
          roleSessionName: 'ccm',
        },
      },
    });
  });

  it.each([
    [
      'an unknown source',
      { source: 'sso' },
      /awsSigV4.source must be one of chain, static, environment, webIdentity, container, instanceProfile/,
    ],
    [
      'key files with another source',
      { source: 'webIdentity', accessKeyIdFile: 'id' },
      /key files are for source static \(or no source\), not webIdentity/,
    ],
    ['static without key files', { source: 'static' }, /awsSigV4.accessKeyIdFile must be a file name/],
    ['a malformed role ARN', { roleARN: 'ccm' }, /awsSigV4.roleARN must be a role ARN/],
    [
      'a role for the instance profile',
      { source: 'instanceProfile', roleARN: 'arn:aws:iam::123456789012:role/x' },
      /are for source webIdentity \(or chain\), not instanceProfile/,
    ],
    ['STS over plain http', { stsEndpoint: 'http://sts.example' }, /awsSigV4.stsEndpoint must be https/],
    [
      'an STS endpoint the URL parser refuses',
      { stsEndpoint: 'https://127.999.0.1' },
      /awsSigV4.stsEndpoint: "https:\/\/127.999.0.1" is not a URL/,
    ],
    [
      'an IMDS endpoint the URL parser refuses',
      { instanceMetadataEndpoint: 'http://127.999.0.1' },
      /awsSigV4.instanceMetadataEndpoint: "http:\/\/127.999.0.1" is not a URL/,
    ],
    [
      'an IMDS endpoint elsewhere over http',
      { instanceMetadataEndpoint: 'http://10.0.0.1' },
      /plain http only to the instance metadata service .* not 10.0.0.1/,
    ],
    [
      'an IMDS endpoint with webIdentity',
      { source: 'webIdentity', instanceMetadataEndpoint: 'http://169.254.169.254' },
      /instanceMetadataEndpoint is for source instanceProfile/,
    ],
  ])('refuse %s, naming it', (_, fields, message) => {
    expect(problem({ region: 'us-east-1', ...fields })).toMatch(message);
  });

  it('take STS over plain http from an insecure (loopback) entry only', () => {
    expect(
      problem(
        { region: 'us-east-1', stsEndpoint: 'http://127.0.0.1:5000' },
        { hosts: ['127.0.0.1:5000'], insecure: true },
      ),
    ).toMatch(/awsSigV4.service is required/);
    expect(
      problem(
        { region: 'us-east-1', service: 'ec2', stsEndpoint: 'http://127.0.0.1:5000' },
        { hosts: ['127.0.0.1:5000'], insecure: true },
      ),
    ).toBe('no error');
  });
});

describe('the chain', () => {
  it('goes in the SDKs order and, when nothing is set up, says why for each source', async () => {
    expect(CHAIN).toEqual(['environment', 'webIdentity', 'container', 'instanceProfile']);
    const flow = new AwsCredentialFlow(settings(), {}, () => NOW);
    await expect(flow.logIn(exchange({}))).rejects.toThrow(
      /^no source of the chain gave credentials: environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set; webIdentity: no role ARN .*; container: AWS_CONTAINER_CREDENTIALS_FULL_URI and _RELATIVE_URI are not set; instanceProfile: instance metadata http:\/\/169.254.169.254 did not answer: connect ECONNREFUSED$/,
    );
  });

  it('takes the environment first, without expiry', async () => {
    const flow = new AwsCredentialFlow(
      settings(),
      { AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: SECRET },
      () => NOW,
    );
    const session = await flow.logIn(exchange(imdsRoutes('2026-11-27T16:00:00Z')));
    expect(session.data).toEqual({ source: 'environment', key: { accessKeyId: 'AKIAENV', secretAccessKey: SECRET } });
    expect(session.lifetimeMs).toBe(24 * 3600_000);
  });

  it('asks IMDSv2 with a token, and gives the instance placement to the plugin', async () => {
    const ex = exchange(imdsRoutes('2026-11-27T16:00:00Z'));
    const flow = new AwsCredentialFlow(settings(), {}, () => NOW);
    const session = await flow.logIn(ex);
    expect(session.data).toEqual({
      source: 'instanceProfile',
      key: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: SECRET, sessionToken: SESSION },
      placement: { region: 'us-east-1', zone: 'us-east-1b' },
    });
    expect(session.lifetimeMs).toBe(6 * 3600_000);
    expect(session.secrets).toEqual([SECRET, SESSION, 'imds-token']);
    expect(flow.pluginConfig('aws', session.data)).toEqual({ 'aws.region': 'us-east-1', 'aws.zone': 'us-east-1b' });
    const put = ex.seen.find((r) => r.method === 'PUT');
    expect(put?.headers).toEqual({ 'x-aws-ec2-metadata-token-ttl-seconds': '21600' });
    expect(put?.timeoutMs).toBe(1000);
    for (const get of ex.seen.filter((r) => r.method === 'GET'))
      expect(get.headers['x-aws-ec2-metadata-token']).toBe('imds-token');
  });

  it('stops at a source that is set up but fails, naming it and what answered, never the token', async () => {
    const token = join(dir, 'jwt');
    writeFileSync(token, `${JWT}\n`);
    const env = { AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/ccm', AWS_WEB_IDENTITY_TOKEN_FILE: token };
    const refusal = `<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>No OpenIDConnect provider found for ${JWT}</Message></Error></ErrorResponse>`;
    const ex = exchange({
      'POST https://sts.us-east-1.amazonaws.com/': answer(400, refusal),
      ...imdsRoutes('2026-11-27T16:00:00Z'),
    });
    const err = await new AwsCredentialFlow(settings(), env, () => NOW).logIn(ex).then(
      () => new Error('no error'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toBe(
      'webIdentity: STS https://sts.us-east-1.amazonaws.com answered 400 (InvalidIdentityToken: No OpenIDConnect provider found for [REDACTED]) (role arn:aws:iam::123456789012:role/ccm)',
    );
    // Not the node's role instead.
    expect(ex.seen.some((r) => r.url.pathname.startsWith('/latest/'))).toBe(false);
    const form = new URLSearchParams(Buffer.from(ex.seen[0]?.body ?? new Uint8Array()).toString());
    expect(form.get('Action')).toBe('AssumeRoleWithWebIdentity');
    expect(form.get('WebIdentityToken')).toBe(JWT);
    expect(ex.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('reads the web identity token anew for each call', async () => {
    const token = join(dir, 'rotating');
    writeFileSync(token, 'first.jwt.token');
    const ex = exchange({
      'POST https://sts.us-east-1.amazonaws.com/': answer(200, stsAnswer('2026-11-27T11:00:00Z')),
    });
    const flow = new AwsCredentialFlow(
      settings({ source: 'webIdentity', roleARN: 'arn:aws:iam::123456789012:role/ccm', webIdentityTokenFile: token }),
      {},
      () => NOW,
    );
    const first = await flow.logIn(ex);
    writeFileSync(token, 'second.jwt.token');
    await flow.logIn(ex);
    const tokens = ex.seen.map((r) =>
      new URLSearchParams(Buffer.from(r.body ?? new Uint8Array()).toString()).get('WebIdentityToken'),
    );
    expect(tokens).toEqual(['first.jwt.token', 'second.jwt.token']);
    expect(first.data.key).toEqual({ accessKeyId: 'ASIASTS', secretAccessKey: SECRET, sessionToken: SESSION });
    expect(first.lifetimeMs).toBe(3600_000);
  });

  it('asks Pod Identity with the token its file holds, and refuses http to another host', async () => {
    const tokenFile = join(dir, 'eks-pod-identity-token');
    writeFileSync(tokenFile, 'pod-identity-token');
    const uri = 'http://169.254.170.23/v1/credentials';
    const ex = exchange({
      [`GET ${uri}`]: answer(200, credentialsJson('2026-11-27T11:00:00Z', { AccountId: '123456789012' })),
    });
    const env = { AWS_CONTAINER_CREDENTIALS_FULL_URI: uri, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: tokenFile };
    const session = await new AwsCredentialFlow(settings({ source: 'container' }), env, () => NOW).logIn(ex);
    expect(session.data.source).toBe('container');
    expect(ex.seen[0]?.headers.authorization).toBe('pod-identity-token');
    const remote = { AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://10.0.0.9/creds' };
    await expect(new AwsCredentialFlow(settings({ source: 'container' }), remote, () => NOW).logIn(ex)).rejects.toThrow(
      /^container: AWS_CONTAINER_CREDENTIALS_FULL_URI http:\/\/10.0.0.9: plain http only to loopback or the ECS\/EKS agents/,
    );
  });

  it('says an explicit source that is not set up is not set up', async () => {
    await expect(
      new AwsCredentialFlow(settings({ source: 'webIdentity' }), {}, () => NOW).logIn(exchange({})),
    ).rejects.toThrow(/^webIdentity: no role ARN and web identity token file .* \(not set up\)$/);
  });

  it('refuses credentials that expired already', async () => {
    const flow = new AwsCredentialFlow(settings({ source: 'instanceProfile' }), {}, () => NOW);
    await expect(flow.logIn(exchange(imdsRoutes('2026-11-27T09:59:00Z')))).rejects.toThrow(
      'instanceProfile: the credentials expired at 2026-11-27T09:59:00.000Z',
    );
  });
});

describe('the answers', () => {
  it('refuse an IMDS answer whose Code is not Success, or that lacks a field', () => {
    expect(() =>
      parseJsonCredentials(
        Buffer.from(credentialsJson('2026-11-27T11:00:00Z', { Code: 'AssumeRoleUnauthorizedAccess' })),
        'imds',
      ),
    ).toThrow('imds answered Code "AssumeRoleUnauthorizedAccess"');
    expect(() => parseJsonCredentials(Buffer.from('{"AccessKeyId":"A"}'), 'imds')).toThrow(
      'imds answered no valid SecretAccessKey',
    );
    expect(() => parseJsonCredentials(Buffer.from(credentialsJson('tomorrow')), 'imds')).toThrow(
      'imds answered no valid Expiration',
    );
  });

  it('read STS credentials with XML escapes and refuse an answer without them', () => {
    const escaped = stsAnswer('2026-11-27T11:00:00Z').replace(SECRET, SECRET.replace('/', '&#47;'));
    expect(parseStsCredentials(escaped, 'AssumeRoleWithWebIdentity').key.secretAccessKey).toBe(SECRET);
    expect(() => parseStsCredentials('<ok/>', 'AssumeRoleWithWebIdentity')).toThrow(
      'STS answered no AssumeRoleWithWebIdentityResult',
    );
  });
});

describe('renewal', () => {
  it('asks the source again at 3/4 of the lifetime (5 minutes before Expiration if sooner), the old key signing meanwhile', async () => {
    let monotonic = 0;
    const flow = new AwsCredentialFlow(settings({ source: 'instanceProfile' }), {}, () => NOW);
    const ex = exchange(imdsRoutes('2026-11-27T16:00:00Z'));
    const keeper = new SessionKeeper({
      credential: 'aws',
      flow,
      exchange: ex,
      logger: silentLogger,
      now: () => monotonic,
    });
    const first = await keeper.current();
    monotonic = 4.5 * 3600_000 - 1;
    expect(keeper.current()).toBe(first);
    expect(keeper.logins).toBe(1);
    monotonic += 1;
    expect(keeper.current()).toBe(first);
    expect(keeper.logins).toBe(2);
  });
});
