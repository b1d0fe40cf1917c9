// The devcloud plugin's instances, zones, clusters and config, through the real runtime against an embedded devcloud.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WasmProvider } from '../../../host/src/plugin/index.ts';
import {
  type CloudEnv,
  cloudApi,
  devcloudPluginPath,
  failure,
  loadDevcloudPlugin,
  node,
  startCloud,
} from './support.ts';

let env: CloudEnv;
let wasmPath: string;
let provider: WasmProvider;
const ids: Record<string, string> = {};

beforeAll(async () => {
  wasmPath = await devcloudPluginPath();
  env = await startCloud();
  const { cloud } = env;
  ids.web = cloud.addInstance({
    name: 'web-1',
    type: 'dc.large',
    zone: 'dc-east-1b',
    addresses: [
      { type: 'InternalIP', address: '10.1.0.5' },
      { type: 'ExternalIP', address: '203.0.113.5' },
      { type: 'Hostname', address: 'web-1' },
    ],
    labels: {
      pool: 'web',
      'has space': 'x',
      'example.com/team': 'a',
      long: 'v'.repeat(64),
      empty: '',
      'k8s-cluster': 'kubernetes',
      'k8s-role': 'control-plane',
    },
  }).id;
  ids.stopped = cloud.addInstance({ name: 'stopped-1', zone: 'dc-west-1a' }).id;
  cloud.stopInstance(ids.stopped);
  ids.gone = cloud.addInstance({ name: 'gone-1' }).id;
  cloud.terminateInstance(ids.gone);
  cloud.addInstance({ name: 'other-cp', labels: { 'k8s-cluster': 'blue', 'k8s-role': 'control-plane' } });
  provider = await loadDevcloudPlugin(wasmPath, env);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await env?.close();
});

describe('devcloud plugin: InstancesV2', () => {
  it('answers metadata by providerID and by name alike, with labels under the devcloud prefix', async () => {
    const v2 = provider.instancesV2()!;
    const byID = await v2.instanceMetadata(node('web-1', `devcloud://${ids.web}`));
    const byName = await v2.instanceMetadata(node('web-1'));
    expect(byName).toEqual(byID);
    expect(byID).toEqual({
      providerID: `devcloud://${ids.web}`,
      instanceType: 'dc.large',
      zone: 'dc-east-1b',
      region: 'dc-east-1',
      nodeAddresses: [
        { type: 'InternalIP', address: '10.1.0.5' },
        { type: 'ExternalIP', address: '203.0.113.5' },
        { type: 'Hostname', address: 'web-1' },
      ],
      // Keys that are not label names, prefixed keys and over-long values are left out.
      additionalLabels: {
        'devcloud.example/pool': 'web',
        'devcloud.example/empty': '',
        'devcloud.example/k8s-cluster': 'kubernetes',
        'devcloud.example/k8s-role': 'control-plane',
      },
    });
  });

  it('stopped instances exist and are shut down; running ones are not', async () => {
    const v2 = provider.instancesV2()!;
    const stopped = node('stopped-1', `devcloud://${ids.stopped}`);
    expect(await v2.instanceExists(stopped)).toBe(true);
    expect(await v2.instanceShutdown(stopped)).toBe(true);
    expect((await v2.instanceMetadata(node('stopped-1'))).zone).toBe('dc-west-1a');
    expect(await v2.instanceShutdown(node('web-1'))).toBe(false);
  });

  it('terminated and missing instances do not exist, and their metadata is InstanceNotFound', async () => {
    const v2 = provider.instancesV2()!;
    for (const n of [node('gone-1'), node('x', `devcloud://${ids.gone}`), node('never'), node('y', 'devcloud://i-0')]) {
      expect(await v2.instanceExists(n)).toBe(false);
      const err = await failure(v2.instanceMetadata(n));
      expect(err.code).toBe('InstanceNotFound');
      expect(err.message).toContain(`node ${n.name}`);
      expect((await failure(v2.instanceShutdown(n))).code).toBe('InstanceNotFound');
    }
  });

  it('a providerID of another cloud is Invalid, never "does not exist"', async () => {
    const err = await failure(provider.instancesV2()!.instanceExists(node('n', 'aws:///us-east-1a/i-1')));
    expect(err.code).toBe('Invalid');
    expect(err.message).toContain('aws:///us-east-1a/i-1');
  });

  it("maps devcloud 429 to Retry with its Retry-After, and 503 to Internal with devcloud's message", async () => {
    const v2 = provider.instancesV2()!;
    env.cloud.setKnobs({ throttleNext: 1, retryAfterSeconds: 7 });
    const retry = await failure(v2.instanceExists(node('web-1')));
    expect(retry).toMatchObject({ code: 'Retry', retryAfterSeconds: 7 });
    env.cloud.setKnobs({ failNext: [{ kind: 'getInstance', count: 1, status: 503 }] });
    const down = await failure(v2.instanceExists(node('web-1', `devcloud://${ids.web}`)));
    expect(down.code).toBe('Internal');
    expect(down.message).toMatch(/devcloud answered 503 unavailable/);
    env.cloud.resetKnobs();
  });
});

describe('devcloud plugin: Zones and Clusters', () => {
  it('zones come from the instance, getZone from the config; missing instances are InstanceNotFound', async () => {
    const zones = provider.zones()!;
    expect(await zones.getZoneByNodeName('stopped-1')).toEqual({ failureDomain: 'dc-west-1a', region: 'dc-west-1' });
    expect(await zones.getZoneByProviderID(`devcloud://${ids.web}`)).toEqual({
      failureDomain: 'dc-east-1b',
      region: 'dc-east-1',
    });
    expect(await zones.getZone()).toEqual({ failureDomain: 'dc-east-1a', region: 'dc-east-1' });
    expect((await failure(zones.getZoneByNodeName('gone-1'))).code).toBe('InstanceNotFound');
    expect((await failure(zones.getZoneByProviderID('devcloud://i-0'))).code).toBe('InstanceNotFound');
  });

  it('lists the clusters named on instances, LBs and routes; master is the control-plane InternalIP', async () => {
    await cloudApi(env, 'POST', '/load-balancers', {
      name: 'green-lb',
      listeners: [],
      backendInstanceIds: [],
      tags: { 'k8s-cluster': 'green' },
    });
    const clusters = provider.clusters()!;
    expect(await clusters.listClusters()).toEqual(['blue', 'green', 'kubernetes']);
    expect(await clusters.master('kubernetes')).toBe('10.1.0.5');
    const none = await failure(clusters.master('green'));
    expect(none.code).toBe('Internal');
    expect(none.message).toContain('no running instance labelled k8s-cluster=green');
  });
});

describe('devcloud plugin: credentials and config', () => {
  it('has no token of its own: without the host credentials devcloud answers 401', async () => {
    const bare = await loadDevcloudPlugin(wasmPath, env, { withCredentials: false });
    try {
      const err = await failure(bare.instancesV2()!.instanceExists(node('web-1')));
      expect(err.code).toBe('Internal');
      expect(err.message).toContain('401 unauthorized');
    } finally {
      await bare.close();
    }
  });

  it('uses labelPrefix and timeoutMs from the config', async () => {
    const config = JSON.stringify({
      url: `${env.cloud.url}/`,
      region: 'dc-east-1',
      labelPrefix: 'infra.acme.io/',
      timeoutMs: 2000,
    });
    const custom = await loadDevcloudPlugin(wasmPath, env, { cloudConfig: config });
    try {
      const md = await custom.instancesV2()!.instanceMetadata(node('web-1'));
      expect(md.additionalLabels['infra.acme.io/pool']).toBe('web');
      expect(Object.keys(md.additionalLabels).every((k) => k.startsWith('infra.acme.io/'))).toBe(true);
      expect((await failure(custom.zones()!.getZone())).message).toContain('no "zone"');
    } finally {
      await custom.close();
    }
  });

  it('refuses a bad config at initialize, naming the field', async () => {
    const url = env.cloud.url;
    const cases: Array<[unknown, string]> = [
      [{ region: 'r' }, '"url" is required'],
      [{ url: 42, region: 'r' }, '"url" is required'],
      [{ url: 'ftp://x', region: 'r' }, '"url" must start with http:// or https://'],
      [{ url: 'http://user:pw@host', region: 'r' }, '"url" must not carry credentials'],
      [{ url: 'http://', region: 'r' }, '"url" has no host'],
      [{ url }, '"region" is required'],
      [{ url, region: 'r', token: 'T' }, '"token": credentials never go in the cloud config'],
      [{ url, region: 'r', regoin: 'r' }, 'unknown field "regoin"'],
      [{ url, region: 'r', timeoutMs: 0 }, '"timeoutMs" must be an integer from 1 to 30000'],
      [{ url, region: 'r', labelPrefix: 'node.kubernetes.io/' }, '"labelPrefix" must not be under kubernetes.io'],
      [{ url, region: 'r', labelPrefix: 'acme' }, '"labelPrefix" must be a DNS subdomain followed by "/"'],
      ['not json', 'not JSON'],
    ];
    for (const [config, message] of cases) {
      const text = typeof config === 'string' ? config : JSON.stringify(config);
      await expect(loadDevcloudPlugin(wasmPath, env, { cloudConfig: text }), text).rejects.toThrow(message);
    }
  });
});
