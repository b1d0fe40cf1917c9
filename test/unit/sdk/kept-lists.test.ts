// Kept node lists (ABI 1.2) on the guest side: the generated exports resolve `nodesRef` before the provider runs.
// The test provider answers ingress 203.0.113.<number of nodes>, so the answer shows which list it was given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../../host/src/abi/index.ts';
import { abiService, compileFixture, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let provider: TestPlugin;
beforeAll(async () => {
  provider = await load(await compileFixture('provider'));
  await provider.call('ccm_initialize', { cloudConfig: '', clusterName: 'prod' });
}, 120_000);
afterAll(async () => {
  await provider?.plugin.close();
});

const service = abiService({ uid: 'u1', ports: [] });
const nodes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `n${i}`,
    uid: `u${i}`,
    providerID: '',
    labels: {},
    annotations: {},
    addresses: [],
  }));

async function ensure(request: { nodes: unknown[]; nodesRef?: number }, method = 'ensureLoadBalancer') {
  const exportName = method === 'ensureLoadBalancer' ? 'ccm_ensure_load_balancer' : 'ccm_update_load_balancer';
  const envelope: unknown = JSON.parse(await provider.call(exportName, { clusterName: 'prod', service, ...request }));
  const checked = validateEnvelope(method as 'ensureLoadBalancer', envelope);
  if (!checked.ok) throw new Error(checked.error);
  return envelope as { ok?: { status: { ingress: { ip: string }[] } }; error?: { code: string; message: string } };
}

describe('kept node lists', () => {
  it('keeps a list sent with a ref and serves ref-only requests from it', async () => {
    expect((await ensure({ nodes: nodes(3), nodesRef: 5 })).ok?.status.ingress[0]?.ip).toBe('203.0.113.3');
    expect((await ensure({ nodes: [], nodesRef: 5 })).ok?.status.ingress[0]?.ip).toBe('203.0.113.3');
    expect((await ensure({ nodes: [], nodesRef: 5 })).ok?.status.ingress[0]?.ip).toBe('203.0.113.3');
  });

  it('answers the documented error for a ref it does not hold', async () => {
    expect((await ensure({ nodes: [], nodesRef: 6 })).error).toEqual({
      code: 'Invalid',
      message: 'unknown nodesRef 6: this instance keeps no such list (the host re-sends it)',
    });
  });

  it('keeps only the latest list; requests without a ref are served as sent', async () => {
    expect((await ensure({ nodes: nodes(2), nodesRef: 7 })).ok?.status.ingress[0]?.ip).toBe('203.0.113.2');
    expect((await ensure({ nodes: [], nodesRef: 5 })).error?.message).toMatch(/^unknown nodesRef 5: /);
    expect((await ensure({ nodes: [] })).ok?.status.ingress[0]?.ip).toBe('203.0.113.0');
    expect((await ensure({ nodes: nodes(4) })).ok?.status.ingress[0]?.ip).toBe('203.0.113.4');
    // A request without a ref leaves the kept list alone.
    expect((await ensure({ nodes: [], nodesRef: 7 })).ok?.status.ingress[0]?.ip).toBe('203.0.113.2');
  });

  it('undoes what a call did to the list in place before the next call', async () => {
    const firstNode = { 'test/first-node': '' };
    const changing = abiService({ uid: 'u1', ports: [], annotations: { ...firstNode, 'test/reverse-and-pop': '' } });
    const reading = abiService({ uid: 'u1', ports: [], annotations: firstNode });
    const call = async (svc: typeof service, request: { nodes: unknown[]; nodesRef: number }) => {
      const text = await provider.call('ccm_ensure_load_balancer', { clusterName: 'prod', service: svc, ...request });
      const ingress = (JSON.parse(text) as { ok: { status: { ingress: { ip: string; hostname: string }[] } } }).ok
        .status.ingress[0];
      return `${ingress?.ip} ${ingress?.hostname}`;
    };
    // The list as sent, then as kept: the change of each call is gone by the next one.
    expect(await call(changing, { nodes: nodes(4), nodesRef: 11 })).toBe('203.0.113.3 n3');
    expect(await call(reading, { nodes: [], nodesRef: 11 })).toBe('203.0.113.4 n0');
    expect(await call(changing, { nodes: [], nodesRef: 11 })).toBe('203.0.113.3 n3');
    expect(await call(changing, { nodes: [], nodesRef: 11 })).toBe('203.0.113.3 n3');
    expect(await call(reading, { nodes: [], nodesRef: 11 })).toBe('203.0.113.4 n0');
    expect(await call(reading, { nodes: [], nodesRef: 11 })).toBe('203.0.113.4 n0');
  });

  it('shares the kept list between ensure and update', async () => {
    await ensure({ nodes: nodes(1), nodesRef: 9 });
    // The test provider does not implement update: NotImplemented shows the ref resolved (else unknown nodesRef).
    expect((await ensure({ nodes: [], nodesRef: 9 }, 'updateLoadBalancer')).error?.code).toBe('NotImplemented');
    expect((await ensure({ nodes: [], nodesRef: 8 }, 'updateLoadBalancer')).error?.message).toMatch(
      /^unknown nodesRef 8: /,
    );
  });
});
