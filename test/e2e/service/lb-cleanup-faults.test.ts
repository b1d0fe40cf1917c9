// Load balancer cleanup and cloud faults through the whole system (real apiserver, wasm-ccm process with the operator
// RBAC, devcloud plugin, devcloud): deletion behind the finalizer, a deletion while the CCM is down finished when it
// comes back, a Service that disappears without the finalizer (its load balancer is left, as upstream leaves it),
// and devcloud 429s/5xx retried until converged.
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LogRecord, DevcloudCCM, CLEANUP_FINALIZER, expectInvariants } from '../../../lab/ccm/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import {
  deleteAllServices,
  eventFor,
  eventually,
  lbService,
  loadBalancersOf,
  patchService,
  readService,
  waitForIngress,
} from './support/helpers.ts';

describe('load balancer cleanup and devcloud faults end to end', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('e2e-lbc');
  const node = (s: string) => `${namespace}-${s}`;
  let env: DevcloudCCM;
  let core: CoreV1Api;
  const invariants = () => ({ kube: env.admin, inventory: () => env.cloud.inventory(), namespaces: [namespace] });
  const logsFor = (name: string, msg: string): LogRecord[] =>
    (env.ccm?.logs() ?? []).filter((r) => r.msg === msg && r.key === `${namespace}/${name}`);

  async function gone(name: string, timeoutMs = 20_000): Promise<void> {
    await eventually(
      `${namespace}/${name} gone`,
      async () => (await readService(core, namespace, name)) === undefined,
      timeoutMs,
    );
  }

  beforeAll(async () => {
    env = await DevcloudCCM.start({ info, tag: 'svc-cleanup', args: ['--controllers=service'] });
    core = env.core;
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await env.seedNode(node('a'));
    await env.seedNode(node('b'));
  });

  afterAll(async () => {
    if (!env) return;
    env.cloud.resetKnobs();
    await deleteAllServices(core, namespace).finally(async () => {
      const code = await env.stop();
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
      expect(code).toBe(0);
    });
  });

  it('deletes the load balancer when the Service is deleted, then removes the finalizer so the Service goes', async () => {
    await core.createNamespacedService({ namespace, body: lbService('bye') });
    const { lb } = await waitForIngress(core, env.cloud, namespace, 'bye');

    await core.deleteNamespacedService({ name: 'bye', namespace });
    await gone('bye');
    expect(loadBalancersOf(env.cloud, namespace, 'bye')).toEqual([]);
    expect(env.cloud.inventory().vipPool.allocated).not.toContain(lb.vip);
    expect((await eventFor(core, namespace, 'bye', 'DeletingLoadBalancer')).type).toBe('Normal');
    await eventFor(core, namespace, 'bye', 'DeletedLoadBalancer');
    await expectInvariants(invariants());
  });

  it('keeps a Service deleted while the CCM is down Terminating, and cleans it up once the CCM is back', async () => {
    await core.createNamespacedService({ namespace, body: lbService('offline') });
    await core.createNamespacedService({ namespace, body: lbService('stays') });
    await waitForIngress(core, env.cloud, namespace, 'offline');
    await waitForIngress(core, env.cloud, namespace, 'stays');

    expect(await env.stopCCM()).toBe(0);
    await core.deleteNamespacedService({ name: 'offline', namespace });
    // A node joins while nobody watches: the restarted CCM ensures every LB Service once, with the new node set.
    const { instance } = await env.seedNode(node('late'));
    // No CCM runs (it exited above), so nothing can clean it up: the apiserver holds it Terminating.
    const held = await readService(core, namespace, 'offline');
    expect(held?.metadata?.deletionTimestamp).toBeDefined();
    expect(held?.metadata?.finalizers).toContain(CLEANUP_FINALIZER);
    expect(loadBalancersOf(env.cloud, namespace, 'offline')).toHaveLength(1);

    await env.startCCM();
    await gone('offline');
    expect(loadBalancersOf(env.cloud, namespace, 'offline')).toEqual([]);
    await eventually('stays has the late node', () =>
      loadBalancersOf(env.cloud, namespace, 'stays')[0]?.backendInstanceIds.includes(instance.id),
    );
    await expectInvariants(invariants());
  });

  it('leaves the load balancer of a Service that disappears without its finalizer (upstream: no delete handler)', async () => {
    await core.createNamespacedService({ namespace, body: lbService('forced') });
    await waitForIngress(core, env.cloud, namespace, 'forced');
    // Someone strips the finalizer and deletes the Service: the apiserver removes it at once. Upstream's service
    // controller has no delete handler, so the load balancer stays (its service cache keeps the Service: node
    // changes still update the load balancer, and one that fails has the load balancer deleted).
    await patchService(core, namespace, 'forced', { metadata: { finalizers: null } });
    await core.deleteNamespacedService({ name: 'forced', namespace });
    await gone('forced', 5_000);
    // The positive sign that the CCM saw the deletion and went on: a Service created after it is served.
    await core.createNamespacedService({ namespace, body: lbService('after-forced') });
    await waitForIngress(core, env.cloud, namespace, 'after-forced');
    const [left] = loadBalancersOf(env.cloud, namespace, 'forced');
    expect(left).toBeDefined();
    const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=forced' });
    expect(events.items.map((e) => e.reason)).not.toContain('DeletingLoadBalancer');
    // The operator removes it; the cloud then matches the cluster again.
    const res = await env.cloud.app.inject({
      method: 'DELETE',
      url: `/v1/load-balancers/${left!.name}`,
      headers: { authorization: `Bearer ${env.cloud.token}` },
    });
    expect(res.statusCode).toBeLessThan(300);
    await expectInvariants(invariants());
  });

  it('waits out devcloud 429s for the Retry-After it sends, then converges', async () => {
    env.cloud.setKnobs({ throttleNext: 2, retryAfterSeconds: 1 });
    const started = Date.now();
    await core.createNamespacedService({ namespace, body: lbService('throttled') });
    await waitForIngress(core, env.cloud, namespace, 'throttled');

    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(env.cloud.knobs().throttleNext).toBe(0);
    const delayed = logsFor('throttled', 'requeueing after the delay the provider asked for');
    expect(delayed.map((r) => r.retryAfterSeconds)).toEqual([1, 1]);
    // A fixed delay replaces the backoff: no exponential requeue was logged for it.
    expect(logsFor('throttled', 'error syncing; requeueing with backoff')).toEqual([]);
    await expectInvariants(invariants());
  });

  it('retries devcloud 500/503 with a growing backoff (5 s, then 10 s), then converges', async () => {
    env.cloud.resetCounters();
    env.cloud.setKnobs({
      failNext: [
        { kind: 'createLoadBalancer', count: 1, status: 500 },
        { kind: 'createLoadBalancer', count: 1, status: 503 },
      ],
    });
    await core.createNamespacedService({ namespace, body: lbService('flaky') });
    const warning = await eventFor(core, namespace, 'flaky', 'SyncLoadBalancerFailed');
    expect(warning.message).toContain('500');
    const { lb } = await waitForIngress(core, env.cloud, namespace, 'flaky', 30_000);

    expect(env.cloud.inventory().counters.createLoadBalancer?.byStatus).toEqual({ '500': 1, '503': 1, '201': 1 });
    const failures = logsFor('flaky', 'error syncing; requeueing with backoff');
    expect(failures.map((r) => r.requeues)).toEqual([0, 1]);
    // Three attempts, 5 s and then 10 s apart (upstream's per-item 5 s .. 300 s): from each failure's log record to
    // the next attempt's outcome (the second failure, then devcloud's creation time of the load balancer).
    const times = failures.map((r) => Number(r.ts));
    const gaps = [(times[1] ?? 0) - (times[0] ?? 0), Date.parse(lb.createdAt) - (times[1] ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(4_900);
    expect(gaps[0]).toBeLessThan(8_000);
    expect(gaps[1]).toBeGreaterThanOrEqual(9_900);
    expect(gaps[1]).toBeLessThan(13_000);
    await expectInvariants(invariants());
  });

  it('falls back to a full ensure when a backend update fails, and converges', async () => {
    env.cloud.setKnobs({ failNext: [{ kind: 'updateLoadBalancer', count: 1, status: 503 }] });
    const { instance } = await env.seedNode(node('c'));
    const warning = await eventually('UpdateLoadBalancerFailed', async () => {
      const list = await core.listNamespacedEvent({ namespace, fieldSelector: 'reason=UpdateLoadBalancerFailed' });
      return list.items[0];
    });
    expect(warning.message).toContain('503');
    for (const name of ['stays', 'throttled', 'flaky']) {
      await eventually(`${name} has node c`, () =>
        loadBalancersOf(env.cloud, namespace, name)[0]?.backendInstanceIds.includes(instance.id),
      );
    }
    await expectInvariants(invariants());
  });
});
