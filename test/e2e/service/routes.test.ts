// Pod-CIDR routes through the whole system: wasm-ccm as a child process (route controller only, 1 s period, operator
// RBAC), the devcloud plugin and devcloud. Routes follow the nodes' spec.podCIDRs inside --cluster-cidr (dual-stack
// too), NetworkUnavailable turns False, deleted nodes lose their routes, strays inside the cluster CIDR are removed
// while routes outside it are left alone, and a terminated instance's blackholed route is replaced by a Warning.
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Route } from '../../../devcloud/src/index.ts';
import { DevcloudCCM, checkInvariants, expectInvariants, TAG_CLUSTER, TAG_NODE } from '../../../lab/ccm/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually } from './support/helpers.ts';

// Ranges no other test file uses, so Nodes another file leaves behind cannot be mistaken for ours.
const CLUSTER_CIDRS = ['10.201.0.0/16', 'fd00:201::/48'];

describe('pod-CIDR routes end to end (wasm-ccm process, devcloud plugin, devcloud)', () => {
  const info = inject('controlPlane');
  const prefix = uniqueName('e2e-rt');
  const node = (s: string) => `${prefix}-${s}`;
  let env: DevcloudCCM;
  let core: CoreV1Api;
  const invariants = () => ({
    kube: env.admin,
    inventory: () => env.cloud.inventory(),
    clusterCIDRs: CLUSTER_CIDRS,
    loadBalancers: false,
  });
  const routesTo = (name: string): Route[] => env.cloud.inventory().routes.filter((r) => r.tags[TAG_NODE] === name);
  /** devcloud's answers to route listings: every reconciliation begins with one (a page or more). */
  const routeLists = (): number => env.cloud.inventory().counters.listRoutes?.total ?? 0;
  const networkUnavailable = async (name: string) =>
    (await core.readNodeStatus({ name })).status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  const adminApi = (method: string, path: string, body?: object) =>
    fetch(`${env.cloud.url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${env.cloud.adminToken}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });

  beforeAll(async () => {
    env = await DevcloudCCM.start({
      info,
      tag: 'routes',
      args: ['--controllers=route', `--cluster-cidr=${CLUSTER_CIDRS.join(',')}`, '--route-reconciliation-period=1s'],
    });
    core = env.core;
  });

  afterAll(async () => {
    if (!env) return;
    const code = await env.stop();
    expect(code).toBe(0);
  });

  it('creates a route per pod CIDR to the node instance and sets NetworkUnavailable False/RouteCreated', async () => {
    const a = await env.seedNode(node('a'), { podCIDRs: ['10.201.1.0/24'] });
    const b = await env.seedNode(node('b'), { podCIDRs: ['10.201.2.0/24', 'fd00:201:0:2::/64'] });
    // Registered without a providerID: the plugin resolves its instance by name.
    const c = await env.seedNode(node('c'), { podCIDRs: ['10.201.3.0/24'], providerID: false });

    await eventually(
      'routes for a, b and c',
      () => routesTo(node('b')).length === 2 && routesTo(node('c')).length === 1 && routesTo(node('a')).length === 1,
    );
    expect(routesTo(node('a'))).toEqual([
      expect.objectContaining({
        destinationCidr: '10.201.1.0/24',
        targetInstanceId: a.instance.id,
        blackhole: false,
        tags: { [TAG_CLUSTER]: 'kubernetes', [TAG_NODE]: node('a') },
      }),
    ]);
    expect(
      routesTo(node('b'))
        .map((r) => [r.destinationCidr, r.targetInstanceId])
        .sort(),
    ).toEqual([
      ['10.201.2.0/24', b.instance.id],
      ['fd00:201:0:2::/64', b.instance.id],
    ]);
    expect(routesTo(node('c'))[0]?.targetInstanceId).toBe(c.instance.id);
    // The route name carries the node's UID (upstream's nameHint).
    expect(routesTo(node('a'))[0]?.name).toContain(a.node.metadata?.uid ?? 'no uid');

    for (const s of ['a', 'b', 'c']) {
      const cond = await eventually(`NetworkUnavailable on ${s}`, async () => {
        const found = await networkUnavailable(node(s));
        return found?.status === 'False' ? found : undefined;
      });
      expect(cond).toMatchObject({ reason: 'RouteCreated', message: 'RouteController created a route' });
    }
    await expectInvariants(invariants());
  });

  it('removes the routes of a deleted node', async () => {
    expect(routesTo(node('b'))).toHaveLength(2);
    await env.deleteNodes([node('b')]);
    await eventually('routes of b removed', () => routesTo(node('b')).length === 0);
    expect(routesTo(node('a'))).toHaveLength(1);
    await expectInvariants(invariants());
  });

  it('deletes a stray route inside the cluster CIDR and leaves one outside it alone', async () => {
    const target = env.cloud.inventory().instances.find((i) => i.name === node('a'));
    if (!target) throw new Error('no instance for node a');
    // The foreign route is made first: the reconciliation that deletes the stray has listed it too.
    for (const [name, cidr] of [
      [`${prefix}-foreign`, '192.168.201.0/24'],
      [`${prefix}-stray`, '10.201.99.0/24'],
    ] as const) {
      const res = await adminApi('POST', '/routes', {
        name,
        destinationCidr: cidr,
        targetInstanceId: target.id,
        tags: { [TAG_CLUSTER]: 'kubernetes', [TAG_NODE]: `${prefix}-nobody` },
      });
      expect(res.status).toBe(201);
    }
    await eventually(
      'stray route deleted',
      () => !env.cloud.inventory().routes.some((r) => r.name === `${prefix}-stray`),
    );
    // Once the next reconciliation lists the routes, the one that deleted the stray has ended, and the foreign route
    // is still there: it is outside every cluster CIDR.
    const lists = routeLists();
    await eventually('the next reconciliation', () => routeLists() > lists);
    expect(env.cloud.inventory().routes.some((r) => r.name === `${prefix}-foreign`)).toBe(true);
    await expectInvariants(invariants());
    expect((await adminApi('DELETE', `/routes/${prefix}-foreign`)).status).toBe(204);
  });

  it('replaces the blackholed route of a terminated instance by FailedToCreateRoute and NetworkUnavailable True', async () => {
    const d = await env.seedNode(node('d'), { podCIDRs: ['10.201.4.0/24'] });
    await eventually('route for d', () => routesTo(node('d')).length === 1);
    env.cloud.terminateInstance(d.instance.id);

    await eventually('blackholed route of d deleted', () => routesTo(node('d')).length === 0);
    const warning = await eventually('FailedToCreateRoute', async () => {
      const list = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${node('d')},reason=FailedToCreateRoute`,
      });
      return list.items[0];
    });
    expect(warning.type).toBe('Warning');
    expect(warning.message).toContain('10.201.4.0/24');
    const cond = await eventually('NetworkUnavailable True on d', async () => {
      const found = await networkUnavailable(node('d'));
      return found?.status === 'True' ? found : undefined;
    });
    expect(cond.reason).toBe('NoRouteCreated');
    // The checker agrees that d cannot be routed, and says why.
    expect(await checkInvariants(invariants())).toEqual([`node ${node('d')}: no route for pod CIDR 10.201.4.0/24`]);

    await env.deleteNodes([node('d')]);
    await expectInvariants(invariants());
  });
});
