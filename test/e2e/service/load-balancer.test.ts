// LoadBalancer Services through the whole system: real apiserver, wasm-ccm as a child process with the operator RBAC,
// the devcloud plugin, and devcloud. Ensure, backends following the node set, annotation-driven re-ensures, a bad
// annotation, a type change, and the invariant checker itself catching a cloud that drifted behind the CCM's back.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DevcloudCCM,
  CA_DELETION_TAINT,
  checkInvariants,
  CLEANUP_FINALIZER,
  EXCLUDE_LABEL,
  expectInvariants,
} from '../../../lab/ccm/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import {
  deleteAllServices,
  eventFor,
  eventually,
  lbService,
  loadBalancersOf,
  patchNode,
  patchService,
  readService,
  serviceEvents,
  waitForIngress,
} from './support/helpers.ts';

const ANNOTATION = 'service.beta.kubernetes.io/devcloud-';

describe('LoadBalancer Services end to end (wasm-ccm process, devcloud plugin, devcloud)', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('e2e-lb');
  const node = (s: string) => `${namespace}-${s}`;
  /** node name -> devcloud instance id */
  const instances = new Map<string, string>();
  let env: DevcloudCCM;
  let core: CoreV1Api;
  const invariants = () => ({ kube: env.admin, inventory: () => env.cloud.inventory(), namespaces: [namespace] });
  const idsOf = (...names: string[]) => names.map((n) => instances.get(node(n)) ?? `missing ${n}`).sort();

  async function backendsBecome(name: string, ids: string[]): Promise<void> {
    await eventually(`${name} backends ${ids.join(',')}`, () => {
      const lbs = loadBalancersOf(env.cloud, namespace, name);
      return lbs.length === 1 && [...(lbs[0]?.backendInstanceIds ?? [])].sort().join() === ids.join();
    });
  }

  beforeAll(async () => {
    env = await DevcloudCCM.start({ info, tag: 'svc-lb', args: ['--controllers=service'] });
    core = env.core;
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (const [s, labels] of [
      ['a', { pool: 'web' }],
      ['b', {}],
    ] as const) {
      instances.set(node(s), (await env.seedNode(node(s), { labels })).instance.id);
    }
    // Registered without a providerID (the cloud-node controller has not run): the plugin finds it by name.
    instances.set(node('c'), (await env.seedNode(node('c'), { providerID: false })).instance.id);
  });

  afterAll(async () => {
    if (!env) return;
    await deleteAllServices(core, namespace).finally(async () => {
      const code = await env.stop();
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
      expect(code).toBe(0);
    });
  });

  it('gives a LoadBalancer Service the VIP devcloud allocated, with every node instance as a backend', async () => {
    await core.createNamespacedService({ namespace, body: lbService('web') });
    const { svc, lb } = await waitForIngress(core, env.cloud, namespace, 'web');

    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: lb.vip, ipMode: 'VIP' }]);
    expect(env.cloud.inventory().vipPool.allocated).toContain(lb.vip);
    expect(svc.metadata?.finalizers).toContain(CLEANUP_FINALIZER);
    expect([...lb.backendInstanceIds].sort()).toEqual(idsOf('a', 'b', 'c'));
    const ports = svc.spec?.ports ?? [];
    expect(lb.listeners).toEqual(ports.map((p) => ({ protocol: p.protocol, port: p.port, nodePort: p.nodePort })));
    expect(lb.tags).toMatchObject({
      'k8s-cluster': 'kubernetes',
      'k8s-service': `${namespace}/web`,
      'k8s-service-uid': svc.metadata?.uid,
    });
    expect(lb.description).toBe(`Kubernetes service ${namespace}/web (cluster kubernetes)`);
    await eventFor(core, namespace, 'web', 'EnsuredLoadBalancer');
    const reasons = (await serviceEvents(core, namespace, 'web')).map((e) => e.reason);
    expect(reasons).toContain('EnsuringLoadBalancer');
    await expectInvariants(invariants());
  });

  it('keeps the backends in step as nodes are added, excluded, tainted for removal and deleted', async () => {
    const before = loadBalancersOf(env.cloud, namespace, 'web')[0];

    instances.set(node('d'), (await env.seedNode(node('d'))).instance.id);
    await backendsBecome('web', idsOf('a', 'b', 'c', 'd'));
    await eventFor(core, namespace, 'web', 'UpdatedLoadBalancer');
    await expectInvariants(invariants());

    await patchNode(core, node('c'), { metadata: { labels: { [EXCLUDE_LABEL]: 'true' } } });
    await backendsBecome('web', idsOf('a', 'b', 'd'));
    await expectInvariants(invariants());

    // As upstream's shouldSyncUpdatedNode, the autoscaler's taint alone syncs nothing (b's connections drain);
    // the next node event, d's deletion, leaves b out with d.
    await patchNode(core, node('b'), {
      spec: {
        taints: [{ key: CA_DELETION_TAINT, value: String(Math.floor(Date.now() / 1000)), effect: 'NoSchedule' }],
      },
    });
    await env.deleteNodes([node('d')]);
    await backendsBecome('web', idsOf('a'));
    await expectInvariants(invariants());

    // "false" keeps a node in. The taint going syncs nothing either; the exclusion's change brings both back.
    await patchNode(core, node('b'), { spec: { taints: null } });
    await patchNode(core, node('c'), { metadata: { labels: { [EXCLUDE_LABEL]: 'false' } } });
    await backendsBecome('web', idsOf('a', 'b', 'c'));
    await expectInvariants(invariants());

    // Backend changes were updates of the same load balancer, never a re-creation.
    const after = loadBalancersOf(env.cloud, namespace, 'web')[0];
    expect(after?.vip).toBe(before?.vip);
    expect(after?.createdAt).toBe(before?.createdAt);
    expect(after?.revision).toBeGreaterThanOrEqual((before?.revision ?? 0) + 4);
  });

  it('re-ensures when an annotation changes: description, then a backend label selector', async () => {
    await patchService(core, namespace, 'web', { metadata: { annotations: { [`${ANNOTATION}description`]: 'shop' } } });
    await eventually(
      'description applied',
      () => loadBalancersOf(env.cloud, namespace, 'web')[0]?.description === 'shop',
    );
    await expectInvariants(invariants());

    await patchService(core, namespace, 'web', {
      metadata: { annotations: { [`${ANNOTATION}backend-label-selector`]: 'pool=web' } },
    });
    await backendsBecome('web', idsOf('a'));
    await expectInvariants(invariants());

    await patchService(core, namespace, 'web', {
      metadata: { annotations: { [`${ANNOTATION}backend-label-selector`]: null } },
    });
    await backendsBecome('web', idsOf('a', 'b', 'c'));
    await expectInvariants(invariants());
  });

  it('reports a bad annotation value as SyncLoadBalancerFailed naming it, and deletes nothing', async () => {
    const before = loadBalancersOf(env.cloud, namespace, 'web')[0];
    env.cloud.resetCounters();
    const bad = `${ANNOTATION}health-check-port`;
    await patchService(core, namespace, 'web', { metadata: { annotations: { [bad]: 'eighty' } } });

    const warning = await eventFor(core, namespace, 'web', 'SyncLoadBalancerFailed');
    expect(warning.type).toBe('Warning');
    expect(warning.message).toContain(bad);
    expect(warning.message).toContain('"eighty"');
    // Still there, untouched; the Service keeps its ingress and finalizer.
    const lbs = loadBalancersOf(env.cloud, namespace, 'web');
    expect(lbs).toHaveLength(1);
    expect(lbs[0]?.revision).toBe(before?.revision);
    expect(env.cloud.inventory().counters.deleteLoadBalancer).toBeUndefined();
    const svc = await readService(core, namespace, 'web');
    expect(svc?.status?.loadBalancer?.ingress?.[0]?.ip).toBe(before?.vip);
    expect(svc?.metadata?.finalizers).toContain(CLEANUP_FINALIZER);

    // Fixing the value is a change like any other: ensured at once, not after the failure's backoff.
    await patchService(core, namespace, 'web', { metadata: { annotations: { [bad]: '10256' } } });
    await eventually(
      'health check port applied',
      () => loadBalancersOf(env.cloud, namespace, 'web')[0]?.healthCheckNodePort === 10256,
      4_000,
    );
    await expectInvariants(invariants());
  });

  it('removes the load balancer, the finalizer and the ingress when the type changes to ClusterIP', async () => {
    await core.createNamespacedService({ namespace, body: lbService('retype') });
    const { lb } = await waitForIngress(core, env.cloud, namespace, 'retype');

    await patchService(core, namespace, 'retype', { spec: { type: 'ClusterIP', externalTrafficPolicy: null } });
    const svc = await eventually('cleaned up', async () => {
      const s = await readService(core, namespace, 'retype');
      return s && !s.metadata?.finalizers?.includes(CLEANUP_FINALIZER) && !s.status?.loadBalancer?.ingress
        ? s
        : undefined;
    });
    expect(svc.spec?.type).toBe('ClusterIP');
    expect(loadBalancersOf(env.cloud, namespace, 'retype')).toEqual([]);
    expect(env.cloud.inventory().vipPool.allocated).not.toContain(lb.vip);
    await eventFor(core, namespace, 'retype', 'DeletedLoadBalancer');
    await expectInvariants(invariants());
  });

  it('the invariant checker catches a stray load balancer and drifted backends; a re-ensure repairs the drift', async () => {
    // A Service of its own: no retry of an earlier test's failure can re-ensure it behind this test's back.
    await core.createNamespacedService({ namespace, body: lbService('drift') });
    const { lb } = await waitForIngress(core, env.cloud, namespace, 'drift');
    await expectInvariants(invariants());
    const api = (method: string, path: string, body?: object) =>
      fetch(`${env.cloud.url}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${env.cloud.adminToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    const stray = await api('POST', '/load-balancers', {
      name: `${namespace}-ghost`,
      listeners: [],
      backendInstanceIds: [],
      tags: { 'k8s-cluster': 'kubernetes', 'k8s-service': `${namespace}/ghost` },
    });
    expect(stray.status).toBe(201);
    const { listeners, sourceRanges, healthCheckNodePort, tags, description } = lb;
    const drift = await api('PUT', `/load-balancers/${lb.name}`, {
      ...{ listeners, sourceRanges, healthCheckNodePort, tags, description },
      backendInstanceIds: idsOf('a'),
    });
    expect(drift.status).toBe(200);

    const violations = await checkInvariants(invariants());
    expect(violations).toEqual([
      `Service ${namespace}/drift: load balancer ${lb.name} backends [${idsOf('a').join(', ')}] lack [${[
        `${node('b')} (${instances.get(node('b'))})`,
        `${node('c')} (${instances.get(node('c'))})`,
      ]
        .sort()
        .join(', ')}] and should not have []`,
      `load balancer ${namespace}-ghost (Service ${namespace}/ghost) has no Service wanting it`,
    ]);

    expect((await api('DELETE', `/load-balancers/${namespace}-ghost`)).status).toBe(204);
    // The CCM does not poll the cloud (upstream neither); any change that re-ensures puts the full spec back.
    await patchService(core, namespace, 'drift', { metadata: { annotations: { [`${ANNOTATION}description`]: 'x' } } });
    await expectInvariants(invariants());
  });
});
