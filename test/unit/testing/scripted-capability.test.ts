// The fakes' capabilities: scripted methods answer as scripted; every other method of the capability (the ones a
// new ABI method adds) exists, records the call and rejects naming itself.
import { expect, it } from 'vitest';
import { CAPABILITIES } from '../../../host/src/abi/index.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { scriptedCapability, UnscriptedMethodError } from '../../support/scripted-capability.ts';

it('keeps the scripted methods and gives every other method of the capability a rejecting default', async () => {
  const seen: string[] = [];
  const zones = scriptedCapability(
    'zones',
    { getZone: async () => ({ failureDomain: 'z1', region: 'r1' }) },
    async (method) => void seen.push(method),
  );
  expect(Object.keys(zones).sort()).toEqual([...CAPABILITIES.zones].sort());
  await expect(zones.getZone()).resolves.toEqual({ failureDomain: 'z1', region: 'r1' });
  const rejected = zones.getZoneByNodeName('node-a');
  await expect(rejected).rejects.toBeInstanceOf(UnscriptedMethodError);
  await expect(rejected).rejects.toThrow('the fake does not script getZoneByNodeName');
  expect(seen).toEqual(['getZoneByNodeName']);
});

it('gives the recording fake provider every method of each capability it has', () => {
  const fake = new FakeProvider({
    capabilities: ['instancesV2', 'instances', 'loadBalancer', 'routes', 'zones', 'clusters'],
  });
  const accessors = {
    instancesV2: fake.instancesV2(),
    instances: fake.instances(),
    loadBalancer: fake.loadBalancer(),
    routes: fake.routes(),
    zones: fake.zones(),
    clusters: fake.clusters(),
  };
  for (const [capability, methods] of Object.entries(CAPABILITIES)) {
    const implementation = accessors[capability as keyof typeof accessors] as object;
    expect(Object.keys(implementation).sort(), capability).toEqual([...methods].sort());
  }
});
