// The AWS plugin with temporary credentials the host gets from a source of the chain, against moto: IRSA (moto's STS
// AssumeRoleWithWebIdentity, signatures checked: moto accepts the assumed role's key only with its session token) and
// the instance profile (moto's instance metadata service over IMDSv2; moto's IMDS hands out a key it never issued,
// so that moto takes any signature, and the signatures are checked here against its recorded requests).
// moto checks a signature on AssumeRoleWithWebIdentity too, which AWS takes unsigned: the tests let exactly the host's
// STS calls through unchecked (Moto.allowUnsigned), every other request is checked.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestPlugin, testNode } from '../../../packages/wasm-ccm/src/testing/index.ts';
import {
  ALLOW_ALL_POLICY,
  type AwsEnv,
  type Moto,
  type RecordedRequest,
  startAwsEnv,
} from '../../../lab/peers/index.ts';
import { loadAwsPlugin } from './support/plugin.ts';
import { CredentialStore, SigV4Signer } from '../../../host/src/plugin/index.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';

const IAM_VERSION = '2010-05-08';
const ROLE = 'ccm-irsa';
const ROLE_ARN = `arn:aws:iam::123456789012:role/${ROLE}`;
// A projected service account token is a JWT; moto's STS takes any token.
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06Y2NtIn0.c2lnbmF0dXJl';

async function createRole(moto: Moto): Promise<void> {
  const trust = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { Federated: 'oidc' }, Action: 'sts:AssumeRoleWithWebIdentity' }],
  };
  const steps: Array<Record<string, string>> = [
    { Action: 'CreateRole', RoleName: ROLE, AssumeRolePolicyDocument: JSON.stringify(trust) },
    { Action: 'PutRolePolicy', RoleName: ROLE, PolicyName: 'ccm', PolicyDocument: JSON.stringify(ALLOW_ALL_POLICY) },
  ];
  for (const step of steps) {
    const answer = await moto.query('iam', { ...step, Version: IAM_VERSION });
    if (answer.status !== 200) throw new Error(`moto IAM ${step.Action} answered ${answer.status}: ${answer.body}`);
  }
}

/** The plugin's requests to EC2 or ELBv2 as moto recorded them: signed, and not with the key that seeded moto. */
const pluginCalls = (moto: Moto): RecordedRequest[] =>
  moto
    .recorded()
    .filter(
      (r) =>
        /Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/(ec2|elasticloadbalancing)\//.test(r.headers.Authorization ?? '') &&
        !(r.headers.Authorization ?? '').includes(`Credential=${moto.accessKey.accessKeyId}/`),
    );

const ADDED_BY_SIGNER = new Set(['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token']);

/** The headers the recorded request's signature covers, but those the signer adds itself. */
function signedHeaders(call: RecordedRequest): Record<string, string> {
  const names = /SignedHeaders=([^,]+)/.exec(call.headers.Authorization ?? '')?.[1]?.split(';') ?? [];
  const byName = new Map(Object.entries(call.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return Object.fromEntries(names.filter((n) => !ADDED_BY_SIGNER.has(n)).map((n) => [n, byName.get(n) ?? '']));
}

describe('aws plugin with IRSA credentials (STS AssumeRoleWithWebIdentity)', () => {
  const CLUSTER = 'aws-irsa';
  let env: AwsEnv;
  let ccm: TestPlugin;

  beforeAll(async () => {
    env = await startAwsEnv({
      cluster: CLUSTER,
      instancesPerZone: 1,
      moto: { recordRequests: true },
      credentials: async (moto, dir) => {
        await createRole(moto);
        writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
        return {
          source: 'webIdentity',
          roleARN: ROLE_ARN,
          webIdentityTokenFile: 'token',
          roleSessionName: 'wasm-ccm-e2e',
          stsEndpoint: moto.endpoint,
        };
      },
    });
    // The host's two AssumeRoleWithWebIdentity calls at load (one per entry), unsigned as AWS takes them.
    await env.moto.allowUnsigned(2);
    ccm = await loadAwsPlugin(env, CLUSTER);
  }, 120_000);

  afterAll(async () => {
    await ccm?.close();
    await env?.close();
  });

  it('signs the plugin requests with the assumed role key and its session token, which moto checks', async () => {
    const a = env.seeded.instances[0]!;
    const found = await ccm.call('instanceMetadata', { node: testNode({ name: a.privateDnsName }) });
    expect(found.providerID).toBe(`aws:///${a.zone}/${a.id}`);

    const sts = env.moto.recorded().filter((r) => r.body.includes('Action=AssumeRoleWithWebIdentity'));
    // One call per entry (EC2's and ELBv2's), each unsigned, with the token and the session name.
    expect(sts).toHaveLength(2);
    for (const call of sts) {
      expect(call.headers.Authorization).toBeUndefined();
      const form = new URLSearchParams(call.body);
      expect(form.get('WebIdentityToken')).toBe(TOKEN);
      expect(form.get('RoleArn')).toBe(ROLE_ARN);
      expect(form.get('RoleSessionName')).toBe('wasm-ccm-e2e');
    }
    const calls = pluginCalls(env.moto);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers.Authorization).toMatch(/Credential=ASIA/);
      expect(call.headers['X-Amz-Security-Token']).toMatch(/^\S{20,}$/);
      expect(call.headers.Authorization).toContain('x-amz-security-token');
    }
  });
});

describe('IRSA credentials renewed ahead of expiry', () => {
  let env: AwsEnv;

  beforeAll(async () => {
    env = await startAwsEnv({
      cluster: 'aws-irsa-renew',
      instancesPerZone: 1,
      moto: { recordRequests: true },
      credentials: async (moto, dir) => {
        await createRole(moto);
        writeFileSync(join(dir, 'token'), TOKEN);
        return { source: 'webIdentity', roleARN: ROLE_ARN, webIdentityTokenFile: 'token', stsEndpoint: moto.endpoint };
      },
    });
  }, 120_000);

  afterAll(async () => {
    await env?.close();
  });

  // The keeper's clock is a fake monotonic one; the lifetime is moto's Expiration (an hour) against the wall clock.
  it('asks STS again with the token as the file holds it then, and signs with the new key, which moto takes', async () => {
    let now = 0;
    const store = await CredentialStore.open({
      file: env.credentialsFile,
      reloadIntervalMs: 0,
      logger: silentLogger,
      logins: { now: () => now },
    });
    const describe = async (): Promise<{ status: number; keyId: string }> => {
      const url = new URL(`http://${env.allowedHosts[0]}/`);
      const body = new TextEncoder().encode('Action=DescribeRegions&Version=2016-11-15');
      const headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
      const authorized = await store.authorize({ method: 'POST', url, headers, body });
      const res = await fetch(url, { method: 'POST', headers: authorized?.headers, body });
      await res.text();
      const keyId = /Credential=([^/]+)\//.exec(authorized?.headers.authorization ?? '')?.[1] ?? '';
      return { status: res.status, keyId };
    };
    try {
      await env.moto.allowUnsigned(2);
      await store.startLogins();
      const first = await describe();
      expect(first.status).toBe(200);
      // The token is rotated (kubelet rewrites the projected file); 46 of 60 minutes pass: renewal is due.
      writeFileSync(join(env.dir, 'token'), `${TOKEN}.rotated`);
      // The renewal's STS call, and the request beside it, whichever moto sees first.
      await env.moto.allowUnsigned(2);
      now = 46 * 60_000;
      const during = await describe();
      expect(during).toEqual({ status: 200, keyId: first.keyId });
      let after = during;
      for (let i = 0; i < 100 && after.keyId === first.keyId; i++) {
        await new Promise((r) => setTimeout(r, 50));
        after = await describe();
      }
      expect(after.keyId).toMatch(/^ASIA/);
      expect(after.keyId).not.toBe(first.keyId);
      expect(after.status).toBe(200);
      const tokens = env.moto
        .recorded()
        .filter((r) => r.body.includes('Action=AssumeRoleWithWebIdentity'))
        .map((r) => new URLSearchParams(r.body).get('WebIdentityToken'));
      expect(tokens).toEqual([TOKEN, TOKEN, `${TOKEN}.rotated`]);
    } finally {
      store.close();
    }
  });
});

describe('aws plugin with instance profile credentials (IMDSv2)', () => {
  const CLUSTER = 'aws-imds';
  let env: AwsEnv;
  let ccm: TestPlugin;

  beforeAll(async () => {
    env = await startAwsEnv({
      cluster: CLUSTER,
      instancesPerZone: 1,
      moto: { verifySignatures: false, recordRequests: true },
      placementInConfig: false,
      credentials: (moto) => Promise.resolve({ source: 'instanceProfile', instanceMetadataEndpoint: moto.endpoint }),
    });
    ccm = await loadAwsPlugin(env, CLUSTER);
  }, 120_000);

  afterAll(async () => {
    await ccm?.close();
    await env?.close();
  });

  it('takes the region and zone from the instance metadata when the cloud config names none', async () => {
    expect(await ccm.call('getZone', {})).toEqual({ failureDomain: 'us-east-1a', region: 'us-east-1' });
  });

  it('asks IMDSv2 for a token, then the role and its credentials, with the token', async () => {
    const imds = env.moto.recorded().filter((r) => r.url.includes('/latest/'));
    const put = imds.find((r) => r.method === 'PUT');
    expect(put?.url).toMatch(/\/latest\/api\/token$/);
    expect(put?.headers['X-Aws-Ec2-Metadata-Token-Ttl-Seconds']).toBe('21600');
    const gets = imds.filter((r) => r.method === 'GET');
    expect(gets.map((r) => new URL(r.url).pathname)).toEqual(
      expect.arrayContaining([
        '/latest/meta-data/iam/security-credentials/',
        '/latest/meta-data/iam/security-credentials/default-role',
        '/latest/meta-data/placement/availability-zone',
      ]),
    );
    for (const get of gets) expect(get.headers['X-Aws-Ec2-Metadata-Token']).toBe('fake-imdsv2-token');
  });

  it('signs the plugin requests with the role credentials and their session token', async () => {
    const a = env.seeded.instances[0]!;
    const found = await ccm.call('instanceMetadata', { node: testNode({ name: a.privateDnsName }) });
    expect(found.zone).toBe(a.zone);
    const calls = pluginCalls(env.moto);
    expect(calls.length).toBeGreaterThan(0);
    // moto's IMDS gives this key: each signature is recomputed with it from the request as moto received it.
    const key = { accessKeyId: 'test-key', secretAccessKey: 'test-secret-key', sessionToken: 'test-session-token' };
    for (const call of calls) {
      expect(call.headers['X-Amz-Security-Token']).toBe('test-session-token');
      const service = /\/(ec2|elasticloadbalancing)\//.exec(call.headers.Authorization ?? '')?.[1] as string;
      const date = call.headers['X-Amz-Date'] as string;
      const url = new URL(call.url);
      const signed = await new SigV4Signer(key, { region: 'us-east-1', service }).sign(
        {
          method: call.method,
          url,
          headers: signedHeaders(call),
          body: new TextEncoder().encode(call.body),
        },
        new Date(
          `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13)}`,
        ),
      );
      expect(call.headers.Authorization).toBe(signed.headers.authorization);
    }
  });
});
