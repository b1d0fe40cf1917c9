// The kit's sample requests come from the ABI definition's request fields: every method gets one, valid against the
// ABI, with the fixture's objects where the field's name or type asks for them.
import { expect, it } from 'vitest';
import { type MethodName, METHODS, validateRequest } from '../../../host/src/abi/index.ts';
import { parseFixture } from '../../../host/src/conformance/index.ts';
import { sampleRequest } from '../../../host/src/conformance/sample-request.ts';

const fixture = parseFixture({
  clusterName: 'c1',
  nodes: { running: [{ name: 'node-a', providerID: 'cloud://i-a', uid: 'u-a' }] },
});
const node = fixture.running[0]!;

it('builds a valid request for every method of the ABI', () => {
  for (const method of Object.keys(METHODS) as MethodName[]) {
    const request = sampleRequest(method, fixture);
    expect(validateRequest(method, request), method).toMatchObject({ ok: true });
  }
});

it('fills fields from the fixture by name and by type', () => {
  expect(sampleRequest('initialize', fixture)).toEqual({ cloudConfig: '', clusterName: 'c1' });
  expect(sampleRequest('nodeAddressesByProviderID', fixture)).toEqual({ providerID: 'cloud://i-a' });
  expect(sampleRequest('instanceType', fixture)).toEqual({ nodeName: 'node-a' });
  expect(sampleRequest('ensureLoadBalancer', fixture)).toEqual({
    clusterName: 'c1',
    service: fixture.service,
    nodes: [node],
  });
  expect(sampleRequest('createRoute', fixture)).toEqual({
    clusterName: 'c1',
    nameHint: 'u-a',
    route: {
      name: '',
      targetNode: 'node-a',
      targetNodeAddresses: [],
      destinationCIDR: '10.250.0.0/24',
      blackhole: false,
    },
  });
  expect(sampleRequest('getZone', fixture)).toEqual({});
});

it('uses a placeholder provider ID for a node without one', () => {
  const bare = parseFixture({ nodes: { running: [{ name: 'node-b' }] } });
  expect(sampleRequest('getZoneByProviderID', bare)).toEqual({ providerID: 'unknown://x' });
});
