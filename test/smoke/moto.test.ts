// Smoke tests: the moto the AWS end-to-end tests run against checks SigV4 signatures, so a broker that signs
// wrongly (or not at all) fails there as it would against AWS; and the host's broker, given moto's key in an
// awsSigV4 credentials entry, signs the way moto (botocore's verifier) accepts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../host/src/log/logger.ts';
import { CredentialStore } from '../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker } from '../../host/src/plugin/broker/http-broker.ts';
import { type AwsAccessKey } from '../../host/src/plugin/broker/sigv4-signer.ts';
import { type Moto, startMoto } from '../../lab/peers/index.ts';

const DESCRIBE_INSTANCES = { Action: 'DescribeInstances', Version: '2016-11-15' };

describe('moto with signature verification', () => {
  let moto: Moto;

  beforeAll(async () => {
    moto = await startMoto();
  });

  afterAll(async () => {
    await moto?.stop();
  });

  it('answers an EC2 DescribeInstances signed with the key it issued', async () => {
    const res = await moto.query('ec2', DESCRIBE_INSTANCES);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<DescribeInstancesResponse');
  });

  it('refuses the same call signed with the right key id and a wrong secret', async () => {
    // The last character changed (to 'x', or to 'y' when it was an 'x': then 'x' would be the right secret).
    const secret = moto.accessKey.secretAccessKey;
    const wrong = { ...moto.accessKey, secretAccessKey: `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}` };
    const res = await moto.query('ec2', DESCRIBE_INSTANCES, wrong);
    expect(res.status).toBe(401);
    expect(res.body).toContain('<Code>AuthFailure</Code>');
  });

  it('refuses the same call signed with a key it never issued', async () => {
    const res = await moto.query('ec2', DESCRIBE_INSTANCES, {
      accessKeyId: 'AKIAUNKNOWN0000000',
      secretAccessKey: 'x',
    });
    expect(res.status).toBe(401);
    expect(res.body).toContain('<Code>AuthFailure</Code>');
  });

  it('refuses the same call unsigned', async () => {
    const res = await moto.unsignedQuery(DESCRIBE_INSTANCES);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body).not.toContain('<DescribeInstancesResponse');
    // Still serving: the refusals above were answers, not a crash.
    expect(moto.running).toBe(true);
    expect((await moto.query('ec2', DESCRIBE_INSTANCES)).status).toBe(200);
  });
});

describe('the host broker signing for moto', () => {
  let moto: Moto;
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-moto-broker-'));

  beforeAll(async () => {
    moto = await startMoto();
  });

  afterAll(async () => {
    await moto?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // A broker as a plugin's: moto's host allowed, the key in files of a Secret, ec2 named (moto is a custom endpoint).
  async function brokerWith(key: AwsAccessKey): Promise<{ broker: HttpBroker; store: CredentialStore }> {
    const host = new URL(moto.endpoint).host;
    writeFileSync(join(dir, 'access-key-id'), `${key.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret-access-key'), `${key.secretAccessKey}\n`);
    const awsSigV4 = {
      accessKeyIdFile: 'access-key-id',
      secretAccessKeyFile: 'secret-access-key',
      region: moto.region,
      service: 'ec2',
    };
    const file = join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify({ credentials: [{ name: 'aws', hosts: [host], awsSigV4, insecure: true }] }));
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: silentLogger });
    const broker = new HttpBroker({
      allowList: new HostAllowList([host]),
      credentials: store,
      maxResponseBytes: 1 << 20,
      // moto answers in ~100 ms, but in seconds on a loaded machine: the test is about signing, not speed.
      defaultTimeoutMs: 20_000,
      maxTimeoutMs: 20_000,
      maxRedirects: 0,
    });
    return { broker, store };
  }

  async function describeInstances(key: AwsAccessKey): Promise<{ status?: number; body?: string }> {
    const { broker, store } = await brokerWith(key);
    const request = {
      method: 'POST',
      url: `${moto.endpoint}/`,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: 'Action=DescribeInstances&Version=2016-11-15',
      timeoutMs: 0,
    };
    try {
      const answer = await broker.handle(
        new TextEncoder().encode(JSON.stringify(request)),
        AbortSignal.timeout(25_000),
      );
      return JSON.parse(new TextDecoder().decode(answer)) as { status?: number; body?: string };
    } finally {
      broker.close();
      store.close();
    }
  }

  it("gets an answer to an unsigned plugin request it signed with moto's key", async () => {
    const answer = await describeInstances(moto.accessKey);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<DescribeInstancesResponse');
  });

  it('is refused when its key file holds a wrong secret', async () => {
    const answer = await describeInstances({ ...moto.accessKey, secretAccessKey: 'wrong-secret-access-key' });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain('<Code>AuthFailure</Code>');
  });
});
