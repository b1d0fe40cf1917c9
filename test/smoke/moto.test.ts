// Smoke tests: the moto the AWS end-to-end tests run against checks SigV4 signatures, so a broker that signs
// wrongly (or not at all) fails there as it would against AWS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Moto, startMoto } from '../support/moto.ts';

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
    const wrong = { ...moto.accessKey, secretAccessKey: `${moto.accessKey.secretAccessKey.slice(0, -1)}x` };
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
