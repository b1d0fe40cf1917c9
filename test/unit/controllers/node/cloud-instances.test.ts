import { describe, expect, it } from 'vitest';
import { InstanceNotFoundError, NotImplementedError, type Node } from '../../../../host/src/cloudprovider/index.ts';
import {
  instanceExists,
  instanceMetadata,
  instanceShutdown,
  instanceStatusOfNodes,
} from '../../../../host/src/controllers/node/cloud-instances.ts';
import { FakeProvider } from '../../../support/fake-provider.ts';

const node = (providerID = ''): Node => ({
  name: 'n1',
  uid: 'u1',
  providerID,
  labels: {},
  annotations: {},
  addresses: [],
});

describe('cloud instance queries', () => {
  it('use InstancesV2 when implemented, never Zones', async () => {
    const cloud = new FakeProvider({ capabilities: ['instancesV2', 'instances', 'zones'] });
    const meta = await instanceMetadata(cloud, node());
    expect(meta.providerID).toBe('fake://n1');
    expect(cloud.callNames()).toEqual(['instance-metadata']);
  });

  it('fall back to legacy Instances + Zones, building the providerID from the instance ID', async () => {
    const cloud = new FakeProvider({ capabilities: ['instances', 'zones'] });
    const meta = await instanceMetadata(cloud, node());
    expect(meta).toMatchObject({
      providerID: 'fake://n1',
      instanceType: 'fake.small',
      zone: 'fake-zone',
      region: 'fake-region',
    });
    expect(cloud.callNames().sort()).toEqual([
      'get-zone-by-provider-id',
      'instance-id',
      'instance-type-by-provider-id',
      'node-addresses-by-provider-id',
    ]);
    const withID = new FakeProvider({ capabilities: ['instances'] });
    expect((await instanceMetadata(withID, node('fake://i-9'))).zone).toBe('');
    expect(withID.callNames()).not.toContain('instance-id');
  });

  it('refuse a provider with no instances interface at all', async () => {
    const cloud = new FakeProvider({ capabilities: ['loadBalancer'] });
    await expect(instanceMetadata(cloud, node())).rejects.toBeInstanceOf(NotImplementedError);
    await expect(instanceExists(cloud, node())).rejects.toBeInstanceOf(NotImplementedError);
  });

  it('exists: false when the cloud says so, or when the legacy instance ID is not found', async () => {
    const v2 = new FakeProvider();
    v2.exists.set('fake://gone', false);
    expect(await instanceExists(v2, node('fake://gone'))).toBe(false);
    expect(await instanceExists(v2, node('fake://here'))).toBe(true);
    const legacy = new FakeProvider({ capabilities: ['instances'] });
    legacy.errors.set('instance-id', new InstanceNotFoundError('no such instance'));
    expect(await instanceExists(legacy, node())).toBe(false);
    legacy.errors.set('instance-exists-by-provider-id', new Error('cloud down'));
    await expect(instanceExists(legacy, node('fake://x'))).rejects.toThrow('cloud down');
  });

  it('shutdown: NotImplemented means not shut down; other errors propagate', async () => {
    const v2 = new FakeProvider();
    v2.shutdown.set('fake://off', true);
    expect(await instanceShutdown(v2, node('fake://off'))).toBe(true);
    v2.errors.set('instance-shutdown', new NotImplementedError('no'));
    expect(await instanceShutdown(v2, node('fake://off'))).toBe(false);
    v2.errors.set('instance-shutdown', new Error('boom'));
    await expect(instanceShutdown(v2, node('fake://off'))).rejects.toThrow('boom');
    const legacy = new FakeProvider({ capabilities: ['instances'] });
    expect(await instanceShutdown(legacy, node())).toBe(false);
    expect(legacy.calls).toEqual([]);
  });
});

describe('instanceStatusOfNodes', () => {
  const named = (name: string): Node => ({ ...node(`fake://${name}`), name });
  const text = (r: { ok: true; value: boolean } | { ok: false; error: Error }) => (r.ok ? r.value : r.error.message);

  it('asks the legacy Instances per node: exists, then shutdown only for the instances that exist', async () => {
    const legacy = new FakeProvider({ capabilities: ['instances'] });
    legacy.exists.set('fake://gone', false);
    legacy.shutdown.set('fake://off', true);
    const status = await instanceStatusOfNodes(legacy, ['on', 'gone', 'off'].map(named));
    expect(status.map((s) => [text(s.exists), text(s.shutdown)])).toEqual([
      [true, false],
      [false, false],
      [true, true],
    ]);
    expect(legacy.calls.map((c) => `${c.method} ${String(c.args[0])}`)).toEqual([
      'instance-exists-by-provider-id fake://on',
      'instance-exists-by-provider-id fake://gone',
      'instance-exists-by-provider-id fake://off',
      'instance-shutdown-by-provider-id fake://on',
      'instance-shutdown-by-provider-id fake://off',
    ]);
  });

  it('takes a NotImplemented shutdown part as "not shut down", and keeps other errors per node', async () => {
    const v2 = new FakeProvider();
    v2.shutdown.set('fake://off', true);
    v2.errors.set('instance-shutdown', new NotImplementedError('cannot tell'));
    v2.errors.set('instance-exists', new Error('cloud down'));
    v2.errorsOnce = true;
    const status = await instanceStatusOfNodes(v2, ['off', 'on'].map(named));
    // The first exists call failed (once); the second node's shutdown check answered NotImplemented (once).
    expect(status.map((s) => [text(s.exists), text(s.shutdown)])).toEqual([
      ['cloud down', false],
      [true, false],
    ]);
  });
});

describe('findRetry', () => {
  it('finds a RetryError behind wrapping errors, as errors.As does', async () => {
    const { findRetry } = await import('../../../../host/src/controllers/framework/workers.ts');
    const { RetryError } = await import('../../../../host/src/cloudprovider/index.ts');
    const retry = new RetryError('busy', 3);
    expect(findRetry(new Error('failed to ensure', { cause: new Error('inner', { cause: retry }) }))).toBe(retry);
    expect(findRetry(new Error('plain'))).toBeUndefined();
    expect(findRetry('not an error')).toBeUndefined();
  });
});
