// A backend is named by its node's instance ID; when the kit knows no providerID for a node, the failure names where
// it should have come from: instanceMetadata when the plugin declares instancesV2, the fixture when it does not.
import { describe, expect, it } from 'vitest';
import { type CheckContext, CheckFailed } from '../../../host/src/conformance/check.ts';
import { backendsAfterEnsureCheck } from '../../../host/src/conformance/checks/backend-checks.ts';
import { testNode } from '../../../host/src/conformance/index.ts';

async function failureWith(declared: string[]): Promise<string> {
  const ctx = {
    fixture: {
      backendProbe: { url: 'http://cloud.example/lbs/{lb}', path: 'ids', identity: 'instanceID' },
      initialNodes: [testNode({ name: 'node-a' })],
      filtered: new Map(),
      notProbed: {},
      service: { uid: 'u-1' },
    },
    state: {
      lbName: 'lb-1',
      lbStatus: { ingress: [{ ip: '198.18.0.1', hostname: '', ipMode: 'VIP', ports: [] }] },
      providerIDs: new Map(),
    },
    declared: new Set(declared),
    hostGet: () => Promise.resolve({ status: 200, body: '{"ids":["i-1"]}' }),
  } as unknown as CheckContext;
  const err = await backendsAfterEnsureCheck.run(ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CheckFailed);
  return (err as CheckFailed).message;
}

describe('backend identity without a providerID', () => {
  it('points at instanceMetadata when the plugin declares instancesV2', async () => {
    expect(await failureWith(['instancesV2', 'loadBalancer'])).toBe(
      'no providerID is known for node node-a: the fixture gives none, and instanceMetadata(node-a) gave none the ' +
        'kit could accept (see the instanceMetadata checks): fix the providerID instanceMetadata answers',
    );
  });

  it('points at the fixture when the plugin cannot find providerIDs', async () => {
    expect(await failureWith(['loadBalancer'])).toBe(
      'no providerID is known for node node-a: the plugin declares no instancesV2 to find it, so give it in the ' +
        'fixture (nodes[].providerID)',
    );
  });
});
