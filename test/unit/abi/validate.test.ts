import { describe, expect, it } from 'vitest';
import {
  ABI_MAJOR,
  CAPABILITIES,
  METHODS,
  type MethodName,
  type Node,
  validateEnvelope,
  validateRequest,
  validateResponse,
  validateValue,
} from '../../../host/src/abi/index.ts';

const metadata = () => ({
  providerID: 'example://i-1',
  instanceType: 'm1.small',
  nodeAddresses: [
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'Hostname', address: 'n1' },
    { type: 'ExternalIP', address: '1.2.3.4' },
  ],
  zone: 'z1',
  region: 'r1',
  additionalLabels: { 'example.com/rack': '7' },
});

const node = (): Node => ({
  name: 'n1',
  uid: 'u1',
  providerID: '',
  labels: {},
  annotations: { a: 'b' },
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
});

function errorOf(r: { ok: true } | { ok: false; error: string }): string {
  if (r.ok) throw new Error('expected the validation to fail');
  return r.error;
}

describe('tables', () => {
  it('map every method to its export and capability', () => {
    expect(ABI_MAJOR).toBe(1);
    expect(METHODS.instanceMetadata).toEqual({
      exportName: 'ccm_instance_metadata',
      capability: 'instancesV2',
      mayBeImplementedElsewhere: false,
      since: 0,
      batchOf: [],
    });
    expect(METHODS.instanceMetadataBatch).toMatchObject({ since: 5, batchOf: ['instanceMetadata'] });
    expect(METHODS.instanceStatusBatch).toMatchObject({ since: 6, batchOf: ['instanceExists', 'instanceShutdown'] });
    expect(METHODS.describe.capability).toBeNull();
    expect(CAPABILITIES.loadBalancer).toContain('ensureLoadBalancerDeleted');
    // A capability requires its 1.0 methods; the optional ones of later minors are in METHODS only.
    const all = Object.values(CAPABILITIES).flat();
    const required = (Object.keys(METHODS) as MethodName[]).filter(
      (m) => METHODS[m].capability !== null && METHODS[m].since === 0,
    );
    expect(all.sort()).toEqual(required.sort());
    expect(all).not.toContain('instanceExistsBatch');
  });
});

describe('validateResponse', () => {
  it('accepts a well-formed answer and ignores unknown fields', () => {
    const value = { ...metadata(), futureField: { anything: [1, 2] } };
    const r = validateResponse('instanceMetadata', value);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.nodeAddresses[2]!.address).toBe('1.2.3.4');
  });

  it('names the path of a bad enum value', () => {
    const value = metadata();
    value.nodeAddresses[2]!.type = 'Foo';
    expect(errorOf(validateResponse('instanceMetadata', value))).toBe(
      'ok.nodeAddresses[2].type: expected one of Hostname|ExternalIP|InternalIP|ExternalDNS|InternalDNS, got "Foo"',
    );
  });

  it('names a missing field', () => {
    const { zone: _zone, ...value } = metadata();
    expect(errorOf(validateResponse('instanceMetadata', value))).toBe(
      'ok.zone: expected string, got nothing (missing)',
    );
  });

  it('names a wrongly typed map value with its key', () => {
    const value = { ...metadata(), additionalLabels: { ok: 'x', 'bad key': 3 } };
    expect(errorOf(validateResponse('instanceMetadata', value))).toBe(
      'ok.additionalLabels["bad key"]: expected string, got 3',
    );
  });

  it('rejects non-objects, lists where objects belong, and nulls', () => {
    expect(errorOf(validateResponse('getZone', 'zone-a'))).toBe('ok: expected object, got "zone-a"');
    expect(errorOf(validateResponse('getZone', []))).toBe('ok: expected object, got a list');
    expect(errorOf(validateResponse('nodeAddresses', { addresses: null }))).toBe(
      'ok.addresses: expected list, got null',
    );
    expect(errorOf(validateResponse('nodeAddresses', { addresses: [null] }))).toBe(
      'ok.addresses[0]: expected object, got null',
    );
  });

  it('checks numbers as i32 and bools as bools', () => {
    const status = (port: unknown) => ({
      status: {
        ingress: [{ ip: '1.1.1.1', hostname: '', ipMode: 'VIP', ports: [{ port, protocol: 'TCP', error: '' }] }],
      },
    });
    expect(validateResponse('ensureLoadBalancer', status(80)).ok).toBe(true);
    expect(errorOf(validateResponse('ensureLoadBalancer', status(80.5)))).toBe(
      'ok.status.ingress[0].ports[0].port: expected i32, got 80.5',
    );
    expect(errorOf(validateResponse('ensureLoadBalancer', status(2 ** 31)))).toBe(
      'ok.status.ingress[0].ports[0].port: expected i32, got 2147483648',
    );
    expect(errorOf(validateResponse('ensureLoadBalancer', status('80')))).toBe(
      'ok.status.ingress[0].ports[0].port: expected i32, got "80"',
    );
    expect(errorOf(validateResponse('instanceExists', { exists: 'true' }))).toBe(
      'ok.exists: expected bool, got "true"',
    );
  });

  it('accepts the empty ipMode and rejects an unknown one', () => {
    const ingress = (ipMode: string) => ({ ingress: [{ ip: '', hostname: 'lb.example', ipMode, ports: [] }] });
    expect(validateResponse('getLoadBalancer', { exists: true, status: ingress('') }).ok).toBe(true);
    expect(errorOf(validateResponse('getLoadBalancer', { exists: true, status: ingress('vip') }))).toBe(
      'ok.status.ingress[0].ipMode: expected one of ""|VIP|Proxy, got "vip"',
    );
  });

  it('cuts long strings short in messages', () => {
    const e = errorOf(validateResponse('getZone', { failureDomain: 'x'.repeat(1000), region: 1 }));
    expect(e).toBe('ok.region: expected string, got 1');
    const e2 = errorOf(validateResponse('getZone', { failureDomain: 5, region: '' }));
    expect(e2).toBe('ok.failureDomain: expected string, got 5');
    expect(errorOf(validateResponse('instanceExists', { exists: 'y'.repeat(1000) })).length).toBeLessThan(120);
  });

  it('refuses an unknown method rather than crashing', () => {
    expect(errorOf(validateResponse('toString' as MethodName, {}))).toBe('unknown method "toString"');
  });
});

describe('validateEnvelope', () => {
  it('accepts ok and error envelopes', () => {
    const ok = validateEnvelope('getZone', { ok: { failureDomain: 'a', region: 'b' } });
    expect(ok).toEqual({ ok: true, value: { ok: { failureDomain: 'a', region: 'b' } } });
    expect(validateEnvelope('getZone', { error: { code: 'NotImplemented', message: '' } }).ok).toBe(true);
    expect(
      validateEnvelope('ensureLoadBalancer', { error: { code: 'Retry', message: 'busy', retryAfterSeconds: 0.5 } }).ok,
    ).toBe(true);
  });

  it('requires retryAfterSeconds > 0 for Retry', () => {
    expect(errorOf(validateEnvelope('getZone', { error: { code: 'Retry', message: 'x' } }))).toBe(
      'error.retryAfterSeconds: expected a number > 0 (required for Retry), got nothing (missing)',
    );
    expect(
      errorOf(validateEnvelope('getZone', { error: { code: 'Retry', message: 'x', retryAfterSeconds: 0 } })),
    ).toMatch(/^error\.retryAfterSeconds: expected a number > 0/);
  });

  it('rejects unknown codes, missing messages, both keys, and neither key', () => {
    expect(errorOf(validateEnvelope('getZone', { error: { code: 'Oops', message: 'x' } }))).toMatch(
      /^error\.code: expected one of InstanceNotFound\|.*, got "Oops"$/,
    );
    expect(errorOf(validateEnvelope('getZone', { error: { code: 'Internal' } }))).toBe(
      'error.message: expected string, got nothing (missing)',
    );
    expect(errorOf(validateEnvelope('getZone', { ok: {}, error: {} }))).toBe('envelope: has both ok and error');
    expect(errorOf(validateEnvelope('getZone', { result: 1 }))).toBe(
      'envelope: expected key ok or error, got {"result"}',
    );
    expect(errorOf(validateEnvelope('getZone', 'ok'))).toBe('envelope: expected object, got "ok"');
  });

  it('validates the ok part against the method response type', () => {
    expect(errorOf(validateEnvelope('getZone', { ok: { failureDomain: 'a' } }))).toBe(
      'ok.region: expected string, got nothing (missing)',
    );
    expect(errorOf(validateEnvelope('getZone', { ok: null }))).toBe('ok: expected object, got null');
  });

  it('accepts ImplementedElsewhere only from ensure/update load balancer', () => {
    const ie = { error: { code: 'ImplementedElsewhere', message: '' } };
    expect(validateEnvelope('ensureLoadBalancer', ie).ok).toBe(true);
    expect(validateEnvelope('updateLoadBalancer', ie).ok).toBe(true);
    expect(errorOf(validateEnvelope('ensureLoadBalancerDeleted', ie))).toBe(
      'error.code: ImplementedElsewhere is not an answer ensureLoadBalancerDeleted may give',
    );
  });
});

describe('validateRequest and validateValue', () => {
  it('checks the host side requests', () => {
    expect(validateRequest('instanceMetadata', { node: node() }).ok).toBe(true);
    const bad = node() as unknown as Record<string, unknown>;
    bad.labels = { x: null };
    expect(errorOf(validateRequest('instanceMetadata', { node: bad }))).toBe(
      'request.node.labels["x"]: expected string, got null',
    );
  });

  it('checks host function inputs by type name', () => {
    const req = { method: 'GET', url: 'https://api.example/x', headers: {}, body: '', timeoutMs: 1000 };
    expect(validateValue('HttpRequest', req).ok).toBe(true);
    expect(errorOf(validateValue('LogRecord', { level: 'trace', message: 'm', fields: {} }, 'record'))).toBe(
      'record.level: expected one of debug|info|warn|error, got "trace"',
    );
  });
});
