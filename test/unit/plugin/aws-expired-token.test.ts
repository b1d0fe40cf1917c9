// Temporary AWS credentials that AWS calls expired (ExpiredToken): the store's authorized request says the answer
// refuses the session, and its renewal asks the source again and signs with the new key. The instance metadata
// service is a canned local server here (test/e2e/aws/credentials.test.ts asks moto's).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { refusesAwsSession } from '../../../host/src/plugin/broker/aws-credential-flow.ts';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'aws-expired-'));
let server: Server;
let imds = '';
let issued = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'PUT' && req.url === '/latest/api/token') return res.end('imds-token');
    if (req.url === '/latest/meta-data/iam/security-credentials/') return res.end('node-role');
    if (req.url === '/latest/meta-data/placement/region') return res.end('us-east-1');
    if (req.url === '/latest/meta-data/placement/availability-zone') return res.end('us-east-1a');
    if (req.url === '/latest/meta-data/iam/security-credentials/node-role') {
      issued++;
      return res.end(
        JSON.stringify({
          Code: 'Success',
          AccessKeyId: `ASIAKEY${issued}`,
          SecretAccessKey: `secret-${issued}`,
          Token: `token-${issued}`,
          Expiration: new Date(Date.now() + 6 * 3600_000).toISOString(),
        }),
      );
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  imds = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const body = (text: string) => ({ chunks: [Buffer.from(text)] });
const QUERY_EXPIRED =
  '<?xml version="1.0"?><Response><Errors><Error><Code>ExpiredToken</Code>' +
  '<Message>The security token included in the request is expired</Message></Error></Errors></Response>';
const JSON_EXPIRED = '{"__type":"com.amazon.coral.service#ExpiredTokenException","message":"expired"}';

describe('an AWS session AWS calls expired', () => {
  it('is told by ExpiredToken (Query and XML APIs) or ExpiredTokenException (JSON APIs), nothing else', () => {
    expect(refusesAwsSession({ status: 400, ...body(QUERY_EXPIRED) })).toBe(true);
    expect(refusesAwsSession({ status: 400, ...body(JSON_EXPIRED) })).toBe(true);
    expect(refusesAwsSession({ status: 403, ...body(JSON_EXPIRED) })).toBe(true);
    expect(refusesAwsSession({ status: 200, ...body(QUERY_EXPIRED) })).toBe(false);
    expect(refusesAwsSession({ status: 400, ...body(QUERY_EXPIRED.replace('ExpiredToken', 'InvalidParameter')) })).toBe(
      false,
    );
    expect(refusesAwsSession({ status: 400, ...body('<Code>ExpiredTokenFoo</Code>') })).toBe(false);
    // The code is read from the body's head only: a 10 MB answer costs no more than its first 2 KiB.
    expect(refusesAwsSession({ status: 400, chunks: [Buffer.alloc(4096, 0x20), Buffer.from(QUERY_EXPIRED)] })).toBe(
      false,
    );
  });

  it('is fetched again from its source and the request signed anew with the new key', async () => {
    const file = join(dir, 'credentials.json');
    writeFileSync(
      file,
      JSON.stringify({
        credentials: [
          {
            name: 'aws',
            hosts: ['ec2.us-east-1.amazonaws.com'],
            awsSigV4: { region: 'us-east-1', source: 'instanceProfile', instanceMetadataEndpoint: imds },
          },
        ],
      }),
    );
    const logins: Array<[string, boolean]> = [];
    const store = await CredentialStore.open({
      file,
      reloadIntervalMs: 0,
      logger: silentLogger,
      onLogin: (credential, ok) => logins.push([credential, ok]),
    });
    try {
      await store.startLogins();
      const request = {
        method: 'POST',
        url: new URL('https://ec2.us-east-1.amazonaws.com/'),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from('Action=DescribeInstances&Version=2016-11-15'),
      };
      const first = await store.authorize(request);
      expect(first?.headers.authorization).toContain('Credential=ASIAKEY1/');
      expect(first?.refused?.({ status: 400, ...body(QUERY_EXPIRED) })).toBe(true);
      const renewed = await first?.renew?.();
      expect(issued).toBe(2);
      expect(renewed?.headers.authorization).toContain('Credential=ASIAKEY2/');
      expect(renewed?.headers['x-amz-security-token']).toBe('token-2');
      expect(renewed?.secrets).toEqual(expect.arrayContaining(['secret-2', 'token-2']));
      // Each fetch counts as a login (wasm_ccm_cloud_api_logins_total).
      expect(logins).toEqual([
        ['aws', true],
        ['aws', true],
      ]);
    } finally {
      store.close();
    }
  });
});
