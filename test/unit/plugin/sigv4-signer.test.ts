// The broker's SigV4 signer against AWS's published Signature Version 4 test suite. The cases in
// test/fixtures/sigv4/aws-sigv4-suite.json are copied from awslabs/aws-c-auth, tests/aws-signing-test-suite/v4
// (commit 495329c, Apache-2.0): the request, the suite's canonical request, Authorization header and signature, for
// the suite's example key AKIDEXAMPLE, region us-east-1, service "service", at 20150830T123600Z. Left out: the path
// normalization cases (the broker signs the path as a URL holds it, already percent-encoded, and AWS double-encodes
// it), obsolete line folding (get-header-value-multiline) and the cases that add the token after signing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SigV4Error, SigV4Signer, awsUriEncode } from '../../../host/src/plugin/broker/sigv4-signer.ts';

interface SuiteCase {
  name: string;
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: string;
  signBody: boolean;
  sessionToken?: string;
  canonicalRequest: string;
  authorization: string;
  signature: string;
}

interface Suite {
  credentials: { accessKeyId: string; secretAccessKey: string };
  region: string;
  service: string;
  timestamp: string;
  cases: SuiteCase[];
}

const suite = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'sigv4', 'aws-sigv4-suite.json'), 'utf8'),
) as Suite;
const signingDate = new Date(suite.timestamp);
const scope = { region: suite.region, service: suite.service };

// Repeated header names are one header whose values are joined by commas, as HTTP says and the suite expects.
function headerMap(headers: Array<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    out[lower] = out[lower] === undefined ? value : `${out[lower]},${value}`;
  }
  return out;
}

function signerFor(c: SuiteCase): SigV4Signer {
  const key = { ...suite.credentials, ...(c.sessionToken !== undefined ? { sessionToken: c.sessionToken } : {}) };
  return new SigV4Signer(key, scope, { payloadHashHeader: c.signBody });
}

describe('SigV4Signer on the AWS SigV4 test suite', () => {
  it('has the cases the issue names', () => {
    const names = suite.cases.map((c) => c.name);
    for (const name of [
      'get-vanilla',
      'get-vanilla-query-order-key-case',
      'post-x-www-form-urlencoded',
      'post-vanilla-query',
    ]) {
      expect(names).toContain(name);
    }
    expect(names.filter((n) => n.startsWith('get-header-')).length).toBeGreaterThanOrEqual(3);
  });

  it.each(suite.cases.map((c) => [c.name, c] as const))('%s: the suite’s signature', async (_name, c) => {
    const url = new URL(`https://${headerMap(c.headers).host}${c.target}`);
    const body = c.body === '' ? undefined : new TextEncoder().encode(c.body);
    const signed = await signerFor(c).sign(
      { method: c.method, url, headers: headerMap(c.headers), ...(body ? { body } : {}) },
      signingDate,
    );
    expect(signed.headers.authorization).toBe(c.authorization);
    expect(signed.headers.authorization).toContain(`Signature=${c.signature}`);
    expect(signed.headers['x-amz-date']).toBe('20150830T123600Z');
    if (c.sessionToken !== undefined) expect(signed.headers['x-amz-security-token']).toBe(c.sessionToken);
    // The query the broker sends is the one the suite's canonical request holds (line 3).
    expect(signed.search.replace(/^\?/, '').split('&').sort().join('&')).toBe(c.canonicalRequest.split('\n')[2]);
  });
});

describe('SigV4Signer', () => {
  const key = suite.credentials;

  it('sends and signs X-Amz-Content-Sha256 by default', async () => {
    const url = new URL('https://ec2.us-east-1.amazonaws.com/');
    const signed = await new SigV4Signer(key, { region: 'us-east-1', service: 'ec2' }).sign(
      { method: 'POST', url, headers: {}, body: new TextEncoder().encode('Action=DescribeInstances') },
      signingDate,
    );
    expect(signed.headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.headers.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date,');
    expect(signed.headers.authorization).toContain('Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request');
  });

  it('sends the query canonically encoded, in the plugin’s order', async () => {
    const url = new URL('https://ec2.us-east-1.amazonaws.com/?b=%7e+x&a=1&a=0&flag');
    const signed = await new SigV4Signer(key, scope).sign({ method: 'GET', url, headers: {} }, signingDate);
    expect(signed.search).toBe('?b=~%2Bx&a=1&a=0&flag=');
    // A query named __proto__ is a parameter like any other.
    const proto = await new SigV4Signer(key, scope).sign(
      { method: 'GET', url: new URL('https://h.example/?__proto__=1'), headers: {} },
      signingDate,
    );
    expect(proto.search).toBe('?__proto__=1');
  });

  it('refuses a query with a malformed percent-escape, without the key in the message', async () => {
    const url = new URL('https://ec2.us-east-1.amazonaws.com/?a=%E1%88');
    const signing = new SigV4Signer(key, scope).sign({ method: 'GET', url, headers: {} }, signingDate);
    await expect(signing).rejects.toThrow(SigV4Error);
    await expect(signing).rejects.toThrow(/malformed percent-escape/);
  });

  it('encodes as RFC 3986 asks: only unreserved characters stay', () => {
    expect(awsUriEncode("a-._~ !'()*/+=ሴ")).toBe('a-._~%20%21%27%28%29%2A%2F%2B%3D%E1%88%B4');
  });
});
