// The awsSigV4 credentials entry: its fields are checked at load with messages that name the problem (never a key),
// its key files are read at start and re-read on every poll, and the store signs the requests to its hosts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amazonHost } from '../../../host/src/plugin/broker/aws-sigv4-entry.ts';
import {
  CredentialFileError,
  checkCredentialFile,
  parseCredentialFile,
} from '../../../host/src/plugin/broker/credential-file.ts';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { recordingLogger } from './support/recording-logger.ts';

const KEY_ID = 'AKIAEXAMPLE000000001';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzzzSECRET';
const TOKEN = 'FwoGZXIvYXdzEXAMPLEsessionTOKEN';

/** A directory holding a Secret's files: the key files and credentials.json naming them relatively. */
function secretDir(entry: Record<string, unknown>, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-aws-creds-'));
  const all = { 'access-key-id': `${KEY_ID}\n`, 'secret-access-key': `${SECRET}\n`, ...files };
  for (const [name, text] of Object.entries(all)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ credentials: [entry] }));
  return join(dir, 'credentials.json');
}

function awsEntry(
  fields: Record<string, unknown> = {},
  hosts = ['ec2.us-east-1.amazonaws.com'],
): Record<string, unknown> {
  return {
    name: 'aws',
    hosts,
    awsSigV4: {
      accessKeyIdFile: 'access-key-id',
      secretAccessKeyFile: 'secret-access-key',
      region: 'us-east-1',
      ...fields,
    },
  };
}

function problem(file: string): string {
  try {
    checkCredentialFile(readFileSync(file, 'utf8'), file);
  } catch (err) {
    expect(err).toBeInstanceOf(CredentialFileError);
    expect((err as Error).message).not.toContain(SECRET);
    return (err as Error).message;
  }
  return 'no error';
}

describe('awsSigV4 entries', () => {
  it('parses one with relative key files, resolved against the credentials file', () => {
    const file = secretDir(awsEntry({ sessionTokenFile: 'session-token' }), { 'session-token': TOKEN });
    const [credential] = parseCredentialFile(readFileSync(file, 'utf8'), file);
    expect(credential?.secret).toEqual({
      kind: 'awsSigV4',
      entry: {
        accessKeyIdFile: join(file, '..', 'access-key-id'),
        secretAccessKeyFile: join(file, '..', 'secret-access-key'),
        sessionTokenFile: join(file, '..', 'session-token'),
        region: 'us-east-1',
      },
    });
    expect(problem(file)).toBe('no error');
  });

  it.each([
    ['an unknown field', awsEntry({ secretKey: 'x' }), /awsSigV4: unknown field 'secretKey'/],
    ['an unknown entry field', { ...awsEntry(), bearer: 'x' }, /\(aws\): unknown field 'bearer'/],
    [
      'no secret key file',
      awsEntry({ secretAccessKeyFile: undefined }),
      /awsSigV4.secretAccessKeyFile must be a file name/,
    ],
    ['no region', awsEntry({ region: undefined }), /awsSigV4.region must be a name like us-east-1/],
    ['a bad service', awsEntry({ service: 'EC2!' }), /awsSigV4.service must be a name like ec2/],
    [
      'a host of another region',
      awsEntry({}, ['ec2.eu-west-1.amazonaws.com']),
      /region eu-west-1, not awsSigV4.region us-east-1/,
    ],
    [
      'a custom endpoint without a service',
      awsEntry({}, ['127.0.0.1:5000']),
      /awsSigV4.service is required: host '127.0.0.1'/,
    ],
    ['two kinds', { ...awsEntry(), bearerToken: 't' }, /exactly one of bearerToken, basicAuth, headers, awsSigV4/],
  ])('refuses %s', (_what, entry, message) => {
    expect(problem(secretDir(entry))).toMatch(message);
  });

  it.each([
    ['a missing key file', { 'secret-access-key': undefined }, /cannot read .*secret-access-key: ENOENT/],
    ['an empty key', { 'access-key-id': '\n' }, /access-key-id is empty/],
    ['a key ID that is not one', { 'access-key-id': 'AKIA 1' }, /access-key-id is not an access key ID/],
    ['a two-line secret', { 'secret-access-key': `${SECRET}\nmore` }, /secret-access-key is not a secret access key/],
  ])('refuses %s, naming the file and never the key', (_what, files, message) => {
    const file = secretDir(awsEntry(), {});
    for (const [name, text] of Object.entries(files)) {
      if (text === undefined) rmSync(join(file, '..', name));
      else writeFileSync(join(file, '..', name), text);
    }
    expect(problem(file)).toMatch(message);
  });

  it('takes the service from AWS host names', () => {
    expect(amazonHost('ec2.us-east-1.amazonaws.com')).toEqual({ service: 'ec2', region: 'us-east-1' });
    expect(amazonHost('elasticloadbalancing.eu-west-3.amazonaws.com')).toEqual({
      service: 'elasticloadbalancing',
      region: 'eu-west-3',
    });
    expect(amazonHost('ec2-fips.us-west-2.amazonaws.com')).toEqual({ service: 'ec2', region: 'us-west-2' });
    expect(amazonHost('iam.amazonaws.com')).toEqual({ service: 'iam' });
    expect(amazonHost('ec2.cn-north-1.amazonaws.com.cn')).toEqual({ service: 'ec2', region: 'cn-north-1' });
    expect(amazonHost('127.0.0.1')).toBeUndefined();
    expect(amazonHost('ec2.us-east-1.amazonaws.com.evil.example')).toBeUndefined();
  });
});

describe('the credential store with an AWS key', () => {
  const request = (url: string) => ({
    method: 'POST',
    url: new URL(url),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'Bearer plugin-made',
      'x-amz-date': '1',
    },
    body: new TextEncoder().encode('Action=DescribeInstances&Version=2016-11-15'),
  });

  it('signs requests to its hosts with the service of the host, replacing what the plugin set', async () => {
    const file = secretDir(
      awsEntry({}, ['ec2.us-east-1.amazonaws.com', 'elasticloadbalancing.us-east-1.amazonaws.com']),
    );
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
    const ec2 = await store.authorize(request('https://ec2.us-east-1.amazonaws.com/'));
    expect(ec2?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${KEY_ID}/\\d{8}/us-east-1/ec2/aws4_request, SignedHeaders=accept-encoding;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(ec2?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(ec2?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const elb = await store.authorize(request('https://elasticloadbalancing.us-east-1.amazonaws.com/'));
    expect(elb?.headers.authorization).toContain('/us-east-1/elasticloadbalancing/aws4_request');
    expect(store.authorize(request('https://s3.us-east-1.amazonaws.com/'))).toBeUndefined();
    // What the answer must not show: the secret, the whole Authorization value and the signature alone.
    const signature = /Signature=(\w+)/.exec(ec2?.headers.authorization ?? '')?.[1];
    expect(ec2?.secrets).toEqual([SECRET]);
    expect(ec2?.requestSecrets).toEqual([ec2?.headers.authorization, signature]);
    expect(ec2?.signature).toBe(signature);
    expect([...(ec2?.secrets ?? []), ...(ec2?.requestSecrets ?? [])]).not.toContain(KEY_ID);
    store.close();
  });

  it('signs with an explicit service for a custom endpoint, and sends the session token', async () => {
    const entry = { ...awsEntry({ service: 'ec2', sessionTokenFile: 'token' }, ['127.0.0.1:5000']), insecure: true };
    const file = secretDir(entry, {
      token: `${TOKEN}\n`,
    });
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
    const signed = await store.authorize(request('http://127.0.0.1:5000/'));
    expect(signed?.headers.authorization).toContain('/us-east-1/ec2/aws4_request');
    expect(signed?.headers.authorization).toContain('x-amz-security-token');
    expect(signed?.headers['x-amz-security-token']).toBe(TOKEN);
    expect(signed?.secrets).toContain(TOKEN);
    store.close();
  });

  it('re-reads rotated key files, and keeps the previous key when a new one is unusable', async () => {
    const file = secretDir(awsEntry());
    const { logger, records } = recordingLogger();
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger });
    expect(await store.reload()).toBe(false);
    writeFileSync(join(file, '..', 'access-key-id'), 'AKIAROTATED000000002');
    expect(await store.reload()).toBe(true);
    const rotated = await store.authorize(request('https://ec2.us-east-1.amazonaws.com/'));
    expect(rotated?.headers.authorization).toContain('Credential=AKIAROTATED000000002/');
    writeFileSync(join(file, '..', 'secret-access-key'), '');
    expect(await store.reload()).toBe(false);
    const kept = await store.authorize(request('https://ec2.us-east-1.amazonaws.com/'));
    expect(kept?.headers.authorization).toContain('Credential=AKIAROTATED000000002/');
    expect(kept?.secrets).toContain(SECRET);
    expect(records.some((r) => r.level === 'error' && r.message.includes('keeping the previous ones'))).toBe(true);
    expect(JSON.stringify(records)).not.toContain(SECRET);
    store.close();
  });

  it('never hands an AWS key to the plugin, even when asked to', async () => {
    const file = secretDir(awsEntry());
    await expect(
      CredentialStore.open({
        file,
        reloadIntervalMs: 0,
        logger: recordingLogger().logger,
        exposeToPlugin: { k: 'aws' },
      }),
    ).rejects.toThrow(/credential 'aws' is an AWS key, which the host only signs with/);
  });

  it('fails at start when a key file is missing', async () => {
    const file = secretDir(awsEntry({ secretAccessKeyFile: 'nope' }));
    await expect(CredentialStore.open({ file, logger: recordingLogger().logger })).rejects.toThrow(
      /cannot read .*nope: ENOENT/,
    );
  });
});
