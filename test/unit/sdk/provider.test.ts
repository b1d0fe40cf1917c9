import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABI_MAJOR, ABI_MINOR, METHODS, type MethodName, validateEnvelope } from '../../../host/src/abi/index.ts';
import { abiService, compileFixture, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let provider: TestPlugin;
let unregistered: TestPlugin;
beforeAll(async () => {
  provider = await load(await compileFixture('provider'));
  unregistered = await load(await compileFixture('unregistered'));
  await provider.call('ccm_initialize', { cloudConfig: '[Global]\nregion = eu-1\n', clusterName: 'prod' });
}, 120_000);
afterAll(async () => {
  await provider?.plugin.close();
  await unregistered?.plugin.close();
});

const service = (annotations: Record<string, string> = {}) =>
  abiService({ uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', annotations });
const node = (name: string) => ({ name, uid: name, providerID: '', labels: {}, annotations: {}, addresses: [] });

// Every answer must also pass the host's validator: the two sides are generated from the same definition.
async function answer(method: MethodName, request: object): Promise<unknown> {
  const text = await provider.call(METHODS[method].exportName, request);
  const envelope: unknown = JSON.parse(text);
  const checked = validateEnvelope(method, envelope);
  if (!checked.ok) throw new Error(`${method} answered an invalid envelope: ${checked.error}\n${text}`);
  return envelope;
}

describe('envelopes', () => {
  it('describe reports the ABI version, identity, capabilities and the Node fields its load balancers read', async () => {
    expect(await answer('describe', {})).toEqual({
      ok: {
        abi: `${ABI_MAJOR}.${ABI_MINOR}`,
        providerName: 'test',
        version: '1.2.3',
        capabilities: ['zones', 'loadBalancer'],
        hasClusterID: true,
        loadBalancerNodeFields: ['name', 'labels'],
      },
    });
  });

  it('writes ok answers as UTF-8 (non-ASCII survives) using the config from initialize', async () => {
    expect(await answer('getZone', {})).toEqual({ ok: { failureDomain: 'zone-ü-prod', region: 'eu-1' } });
  });

  it.each([
    ['missing', { code: 'InstanceNotFound', message: 'no node missing' }],
    ['busy', { code: 'Retry', message: 'busy', retryAfterSeconds: 2.5 }],
    ['busy-zero', { code: 'Retry', message: 'busy', retryAfterSeconds: 1 }],
    ['broken', { code: 'Internal', message: 'broken ✗' }],
  ])('encodes the error a method returns (%s)', async (nodeName, error) => {
    expect(await answer('getZoneByNodeName', { nodeName })).toEqual({ error });
  });

  it('answers NotImplemented for methods the provider did not override', async () => {
    expect(await answer('listRoutes', { clusterName: 'prod' })).toEqual({
      error: { code: 'NotImplemented', message: 'listRoutes is not implemented' },
    });
    expect(await answer('instanceMetadata', { node: node('n1') })).toEqual({
      error: { code: 'NotImplemented', message: 'instanceMetadata is not implemented' },
    });
  });

  it('answers Invalid naming the path when the request does not decode', async () => {
    const text = await provider.call('ccm_ensure_load_balancer', {
      clusterName: 'prod',
      service: { ...service(), ports: [{ port: 'eighty' }] },
      nodes: [],
    });
    expect(JSON.parse(text)).toEqual({
      error: { code: 'Invalid', message: 'request.service.ports[0].port: expected number, got string' },
    });
    expect(JSON.parse(await provider.call('ccm_get_zone', 'not json'))).toEqual({
      error: { code: 'Invalid', message: 'request: invalid JSON at byte 0: expected object' },
    });
    expect(JSON.parse(await provider.call('ccm_get_zone', '{} {}'))).toEqual({
      error: { code: 'Invalid', message: 'request: invalid JSON at byte 3: expected end of input' },
    });
  });

  it('ensureLoadBalancer: status, ImplementedElsewhere and Invalid', async () => {
    expect(
      await answer('ensureLoadBalancer', { clusterName: 'prod', service: service(), nodes: [node('a'), node('b')] }),
    ).toEqual({
      ok: {
        status: {
          ingress: [
            { ip: '203.0.113.2', hostname: '', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: '' }] },
          ],
        },
      },
    });
    expect(
      await answer('ensureLoadBalancer', {
        clusterName: 'prod',
        service: service({ 'test/elsewhere': '' }),
        nodes: [],
      }),
    ).toEqual({ error: { code: 'ImplementedElsewhere', message: 'handled by another controller' } });
    expect(
      await answer('ensureLoadBalancer', { clusterName: 'prod', service: service({ 'test/bad': 'x"y' }), nodes: [] }),
    ).toEqual({ error: { code: 'Invalid', message: 'annotation test/bad: x"y' } });
  });

  it('takes the last of a field given twice, for maps and lists read into their defaults too', async () => {
    // JSON.stringify never repeats a key: the request is spliced by hand, the Service's annotations given twice.
    const withAnnotations = (...maps: Record<string, string>[]): string => {
      const svc = JSON.stringify(service());
      const repeated = maps.map((m) => `"annotations":${JSON.stringify(m)}`).join(',');
      return `{"clusterName":"prod","service":${svc.replace(/"annotations":\{\}/, repeated)},"nodes":[]}`;
    };
    const call = async (text: string): Promise<unknown> =>
      JSON.parse(await provider.call(METHODS.ensureLoadBalancer.exportName, text));
    expect(await call(withAnnotations({ 'test/bad': 'first' }, { 'test/bad': 'second' }))).toEqual({
      error: { code: 'Invalid', message: 'annotation test/bad: second' },
    });
    expect(await call(withAnnotations({ 'test/bad': 'first' }, {}))).toMatchObject({ ok: { status: {} } });
  });

  it('getLoadBalancerName follows the upstream default', async () => {
    expect(await answer('getLoadBalancerName', { clusterName: 'prod', service: service() })).toEqual({
      ok: { name: 'a1b4e28ba2fa111d2883f0016d3cca42' },
    });
  });

  it('every export returns 0 and answers, even on a fresh instance', async () => {
    for (const [method, info] of Object.entries(METHODS)) {
      const text = await unregistered.call(info.exportName, method === 'describe' ? {} : {});
      expect(JSON.parse(text), method).toEqual({
        error: {
          code: 'Internal',
          message: "no provider registered: call registerProvider(new MyProvider()) in the plugin's entry file",
        },
      });
    }
  });

  it('a provider with a bad config refuses initialize with Invalid', async () => {
    const fresh = await load(await compileFixture('provider'));
    try {
      expect(JSON.parse(await fresh.call('ccm_initialize', { cloudConfig: 'region\n[x', clusterName: '' }))).toEqual({
        error: { code: 'Invalid', message: 'cloud config: line 1: expected key = value; line 2: bad section header' },
      });
    } finally {
      await fresh.plugin.close();
    }
  });
});

describe("instanceStatusBatch's default", () => {
  const none = { code: '', message: '', retryAfterSeconds: 0 };
  const part = (key: 'exists' | 'shutdown', value: boolean, error = none) => ({ ok: { [key]: value }, error });
  const status = (nodes: string[]) => answer('instanceStatusBatch', { nodes: nodes.map(node) });

  it('asks instanceExistsBatch for every node and instanceShutdownBatch for those that exist', async () => {
    expect(await status(['on', 'off-1', 'gone-1'])).toEqual({
      ok: {
        results: [
          { exists: part('exists', true), shutdown: part('shutdown', false) },
          { exists: part('exists', true), shutdown: part('shutdown', true) },
          { exists: part('exists', false), shutdown: part('shutdown', false) },
        ],
      },
    });
    expect(await status([])).toEqual({ ok: { results: [] } });
  });

  it('fails as a whole when instanceExistsBatch does, or answers another number of nodes', async () => {
    expect(await status(['on', 'down'])).toEqual({ error: { code: 'Internal', message: 'exists listing failed' } });
    expect(await status(['short', 'on'])).toEqual({
      error: { code: 'Internal', message: 'instanceExistsBatch answered 1 results for 2 nodes' },
    });
  });

  it('fails only the shutdown part of the existing nodes when instanceShutdownBatch fails as a whole', async () => {
    const throttled = { code: 'Retry', message: 'slow down', retryAfterSeconds: 30 };
    expect(await status(['on', 'throttle', 'gone-2'])).toEqual({
      ok: {
        results: [
          { exists: part('exists', true), shutdown: part('shutdown', false, throttled) },
          { exists: part('exists', true), shutdown: part('shutdown', false, throttled) },
          { exists: part('exists', false), shutdown: part('shutdown', false) },
        ],
      },
    });
  });
});
