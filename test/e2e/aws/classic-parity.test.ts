// Classic ELB beside cloud-provider-aws v1.36 on moto: the same Service without aws-load-balancer-type through
// create, a port change, a node joining and deletion under each CCM, every normalized field compared
// (support/classic-run.ts; both CCMs reach moto through support/moto-corrections.ts, which adds the health check AWS
// always has and answers the back-end protocol a listener was made with); the annotations (support/classic-tls.ts:
// TLS listeners with a certificate and negotiation policy, HTTP back ends, proxy protocol, the Service's own and
// extra security groups, the subnets annotation and a change of it) the same way; [Global] ElbSecurityGroup the same
// way; and the handover: upstream makes the Classic ELB, stops, and wasm-ccm keeps that ELB (no second load
// balancer, the same DNS name and security group), follows the node set, and on deletion leaves no ELB, group or
// rule.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminKubeConfig,
  ccmIdentity,
  applyManifests,
  loadManifests,
  uniqueName,
} from '../../../lab/controlplane/index.ts';
import { diffSnapshots, differencesText, snapshotText } from '../../support/parity/diff.ts';
import type { Snapshot } from '../../support/parity/flatten.ts';
import {
  type ClassicContext,
  classicEnv,
  cleanup,
  CLB_CLUSTER,
  createService,
  createWeb,
  deleteServices,
  deleteWeb,
  type Impl,
  JSON_PATCH,
  joinNode,
  nodeName,
  normalizer,
  type Running,
  settled,
  snapshotState,
  startImpl,
} from './support/classic-run.ts';
import { type ClassicState, classicNames, groupRules } from './support/clb-state.ts';
import { BYO_GROUP, EXTRA_GROUP, makeGroup, SSL_POLICY, tlsScenario } from './support/classic-tls.ts';
import type { AwsEnv } from '../../../lab/peers/index.ts';
import { elbInventory, tagResource } from '../../../lab/peers/index.ts';
import { ccmFailure } from './support/ccm-failure.ts';

/** Every group's rules, both Services' ELB names normalized ({lb} and {lb2}). */
async function allRules(env: AwsEnv, ctx: ClassicContext, web: string, api: string) {
  const norm = normalizer(env, ctx, web);
  const rules = await groupRules(env.query, env.seeded.vpcId, {
    ...norm,
    text: (s) => norm.text(s).replaceAll(api, '{lb2}'),
  });
  return rules;
}

describe('Classic ELB: wasm-ccm beside cloud-provider-aws, and the handover from it', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const namespace = uniqueName('e2e-aws-clb');
  let ctx: ClassicContext;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const base = 30_000 + Math.floor(Math.random() * 2_700);
    ctx = { info, admin, token, namespace, nodePorts: [base, base + 1, base + 2] };
  });

  afterAll(async () => {
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  /** create -> port change -> node join -> delete under one CCM; the normalized snapshot and what is left. */
  async function scenario(impl: Impl): Promise<{ snapshot: Snapshot; left: string[]; corrections: number }> {
    const env = await classicEnv();
    const out: Snapshot = new Map();
    let run: Running | undefined;
    try {
      run = await startImpl(impl, ctx, env);
      for (const i of [0, 1]) await joinNode(run, i);
      const lb = await createWeb(run, ctx);
      const created = await settled(
        run,
        ctx,
        lb,
        'created',
        (s) => s.instances.length === 2 && s.healthCheck.interval === '10',
      );
      await snapshotState(out, 'create', run, ctx, lb, created.state, created.hostname);
      await run.core.patchNamespacedService(
        {
          namespace: ctx.namespace,
          name: 'web',
          body: [
            {
              op: 'replace',
              path: '/spec/ports/1',
              value: { name: 'https', port: 8443, targetPort: 8443, nodePort: ctx.nodePorts[2], protocol: 'TCP' },
            },
          ],
        },
        JSON_PATCH,
      );
      const changed = await settled(
        run,
        ctx,
        lb,
        'port changed',
        (s) => s.listeners.some((l) => l.startsWith('TCP:8443')) && !s.listeners.some((l) => l.startsWith('TCP:443')),
      );
      await snapshotState(out, 'port-change', run, ctx, lb, changed.state, changed.hostname);
      await joinNode(run, 2);
      const joined = await settled(run, ctx, lb, 'node joined', (s) => s.instances.length === 3);
      await snapshotState(out, 'node-join', run, ctx, lb, joined.state, joined.hostname);
      const left = await deleteWeb(run, ctx, lb);
      return { snapshot: out, left, corrections: run.corrections().healthChecks };
    } catch (err) {
      throw ccmFailure(impl, err, run?.ccm.tail());
    } finally {
      await cleanup(
        run,
        env,
        ctx,
        [0, 1, 2].map((i) => nodeName(env, i)),
      );
    }
  }

  it('makes, changes and deletes the Classic ELB as upstream does', async () => {
    const upstream = await scenario('upstream');
    const wasm = await scenario('wasm-ccm');
    if (process.env.PARITY_DUMP) {
      console.log(`upstream:\n${snapshotText(upstream.snapshot)}\nwasm-ccm:\n${snapshotText(wasm.snapshot)}`);
    }
    // The correction was needed (moto gave a new ELB no health check) and made.
    expect(upstream.corrections).toBeGreaterThan(0);
    // The snapshots hold what is compared: upstream's health check, the listeners after the port change, the rules.
    expect(upstream.snapshot.get('create/elb/healthCheck/target')).toBe('"TCP:nodePort:80"');
    expect(upstream.snapshot.get('port-change/elb/listeners/#order')).toBe(
      '["TCP:80 -> TCP:nodePort:80","TCP:8443 -> TCP:nodePort:8443"]',
    );
    expect(upstream.snapshot.get('node-join/hostname-is-elb-dns')).toBe('true');
    expect(
      [...upstream.snapshot.keys()].filter((k) => k.includes('security-groups/cluster-vpc~1k8s-elb-{lb}')),
    ).not.toEqual([]);
    expect(upstream.left).toEqual([]);
    expect(wasm.left).toEqual([]);
    const { failing, allowed } = diffSnapshots(upstream.snapshot, wasm.snapshot, []);
    if (allowed.length > 0) console.log(`classic parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    expect(failing, differencesText(failing)).toEqual([]);
  }, 300_000);

  it('makes TLS listeners, policies, brought security groups and annotated subnets as upstream does', async () => {
    const upstream = await tlsScenario('upstream', ctx);
    const wasm = await tlsScenario('wasm-ccm', ctx);
    if (process.env.PARITY_DUMP) {
      console.log(`upstream:\n${snapshotText(upstream.snapshot)}\nwasm-ccm:\n${snapshotText(wasm.snapshot)}`);
    }
    const at = (key: string) => upstream.snapshot.get(key);
    // The members of a flattened list of one or more, in any order.
    const members = (key: string) =>
      [...upstream.snapshot.entries()]
        .filter(([k]) => k.startsWith(`${key}/[`))
        .map(([, v]) => JSON.parse(v) as string);
    const cert = upstream.certificate;
    // What is compared: upstream's listeners, policies, groups and subnets as the annotations ask.
    expect(at('create/web/listeners/#order')).toBe(
      JSON.stringify(['HTTP:80 -> HTTP:nodePort:80', `HTTPS:443 -> HTTP:nodePort:443 cert=${cert}`]),
    );
    expect(members('create/web/listenerPolicies/443')).toEqual([`k8s-SSLNegotiationPolicy-${SSL_POLICY}`]);
    expect(at('create/web/securityGroups/#order')).toBe(JSON.stringify([BYO_GROUP, EXTRA_GROUP]));
    expect(members('create/api/listeners')).toEqual([`SSL:8443 -> TCP:nodePort:8443 cert=${cert}`]);
    expect(members('create/api/backendPolicies/nodePort:8443')).toEqual(['k8s-proxyprotocol-enabled']);
    expect(members('create/api/subnets')).toEqual(['{subnet-0}']);
    expect(members('subnet-change/api/subnets')).toEqual(['{subnet-1}']);
    expect(at(`create/security-groups/cluster-vpc~1${CLB_CLUSTER}-nodes/#order`)).toContain(`from group ${BYO_GROUP}`);
    // Both saw the back-end protocols of their listeners corrected (SSL -> TCP, HTTPS -> HTTP: moto says SSL, HTTPS).
    expect(upstream.corrections.instanceProtocols).toBeGreaterThan(0);
    expect(wasm.corrections.instanceProtocols).toBeGreaterThan(0);
    const { failing, allowed } = diffSnapshots(upstream.snapshot, wasm.snapshot, []);
    if (allowed.length > 0) console.log(`classic TLS parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    expect(failing, differencesText(failing)).toEqual([]);
    // Deletion: nothing of either ELB; the brought groups stay as they were, and no rule names them.
    expect(upstream.left).toEqual([]);
    expect(wasm.left).toEqual([]);
    const brought = {
      [`cluster-vpc/${BYO_GROUP}`]: ['tcp 443-443 from 203.0.113.0/24'],
      [`cluster-vpc/${EXTRA_GROUP}`]: ['tcp 8443-8443 from 203.0.113.0/24'],
    };
    expect(upstream.broughtAfter).toEqual(brought);
    expect(wasm.broughtAfter).toEqual(brought);
  }, 400_000);

  /** The default Service under one CCM with [Global] ElbSecurityGroup: made and deleted; what each step left. */
  async function configuredGroupScenario(impl: Impl) {
    const env = await classicEnv();
    const snapshot: Snapshot = new Map();
    let run: Running | undefined;
    try {
      // Tagged for the cluster, as an operator's group may be: still never the ELB's to delete.
      const shared = await makeGroup(env, 'shared-elb', '9443');
      await tagResource(env.query, shared, { [`kubernetes.io/cluster/${CLB_CLUSTER}`]: 'owned' });
      run = await startImpl(impl, ctx, env, [`ElbSecurityGroup = ${shared}`]);
      for (const i of [0, 1]) await joinNode(run, i);
      const lb = await createWeb(run, ctx);
      const ready = (s: ClassicState) => s.instances.length === 2 && s.healthCheck.interval === '10';
      const created = await settled(run, ctx, lb, 'created', ready);
      await snapshotState(snapshot, 'create', run, ctx, lb, created.state, created.hostname);
      const left = await deleteWeb(run, ctx, lb);
      const after = await groupRules(run.query, env.seeded.vpcId, normalizer(env, ctx, lb));
      return { snapshot, groups: created.state.securityGroups, left, after };
    } catch (err) {
      throw ccmFailure(impl, err, run?.ccm.tail());
    } finally {
      await cleanup(
        run,
        env,
        ctx,
        [0, 1].map((i) => nodeName(env, i)),
      );
    }
  }

  it('gives the ELB [Global] ElbSecurityGroup as upstream does, and keeps that group on deletion', async () => {
    const upstream = await configuredGroupScenario('upstream');
    const wasm = await configuredGroupScenario('wasm-ccm');
    for (const run of [upstream, wasm]) {
      expect(run.groups).toEqual(['shared-elb']);
      expect(run.left).toEqual([]);
      expect(run.after['cluster-vpc/shared-elb']).toEqual(['tcp 9443-9443 from 203.0.113.0/24']);
      expect(run.after[`cluster-vpc/${CLB_CLUSTER}-nodes`]).toEqual([]);
    }
    expect(wasm.after).toEqual(upstream.after);
    const { failing } = diffSnapshots(upstream.snapshot, wasm.snapshot, []);
    expect(failing, differencesText(failing)).toEqual([]);
  }, 240_000);

  it('takes over the Classic ELBs upstream made: the same ELBs, groups and rules, then deletes everything upstream would', async () => {
    const env = await classicEnv();
    let run: Running | undefined;
    const A = 'service.beta.kubernetes.io/aws-load-balancer-';
    try {
      run = await startImpl('upstream', ctx, env);
      for (const i of [0, 1]) await joinNode(run, i);
      // The default Service, and one with the Classic annotations and source ranges.
      const web = await createWeb(run, ctx);
      const api = await createService(
        run,
        ctx,
        'api',
        {
          [`${A}internal`]: 'true',
          [`${A}additional-resource-tags`]: 'team=api',
          [`${A}connection-draining-enabled`]: 'true',
          [`${A}connection-draining-timeout`]: '120',
          [`${A}connection-idle-timeout`]: '300',
          [`${A}healthcheck-interval`]: '20',
        },
        [{ name: 'http', port: 80, targetPort: 8080, nodePort: ctx.nodePorts[2], protocol: 'TCP' }],
        ['10.1.0.0/16'],
      );
      const ready = (s: ClassicState, interval: string) =>
        s.instances.length === 2 && s.healthCheck.interval === interval;
      const before = {
        web: await settled(run, ctx, web, 'upstream made web', (s) => ready(s, '10')),
        api: await settled(run, ctx, api, 'upstream made api', (s) => ready(s, '20'), 'api'),
        rules: await allRules(env, ctx, web, api),
      };
      // What upstream made, which the takeover must keep as it is.
      expect(before.api.state).toMatchObject({
        scheme: 'internal',
        tags: { team: 'api' },
        attributes: { connectionDraining: 'true', connectionDrainingTimeout: '120', idleTimeout: '300' },
      });
      expect(before.rules['cluster-vpc/k8s-elb-{lb2}']).toEqual([
        'icmp 3-4 from 10.1.0.0/16',
        'tcp 80-80 from 10.1.0.0/16',
      ]);
      expect(before.rules[`cluster-vpc/${CLB_CLUSTER}-nodes`]).toEqual([
        '-1 - from group k8s-elb-{lb2}',
        '-1 - from group k8s-elb-{lb}',
      ]);
      await run.ccm.stop();
      await run.stopProxy();
      run = await startImpl('wasm-ccm', ctx, env);
      // wasm-ccm's positive sign: the node that joins after the takeover is initialized and registered by it.
      await joinNode(run, 2);
      const three = (s: ClassicState) => s.instances.length === 3;
      const after = {
        web: await settled(run, ctx, web, 'wasm-ccm registered the new node in web', three),
        api: await settled(run, ctx, api, 'wasm-ccm registered the new node in api', three, 'api'),
        rules: await allRules(env, ctx, web, api),
      };
      for (const svc of ['web', 'api'] as const) {
        expect(after[svc].hostname).toBe(before[svc].hostname);
        expect(after[svc].state).toEqual({ ...before[svc].state, instances: ['{node-0}', '{node-1}', '{node-2}'] });
      }
      // Not one rule added or revoked in any group, and no second load balancer of either kind.
      expect(after.rules).toEqual(before.rules);
      expect((await classicNames(env.query)).sort()).toEqual([web, api].sort());
      expect((await elbInventory(env.query)).loadBalancers).toEqual([]);
      const left = await deleteServices(
        run,
        ctx,
        new Map([
          ['web', web],
          ['api', api],
        ]),
      );
      expect(left).toEqual([]);
      // Nothing of either: no ELB, no k8s-elb- group, and the nodes' group without a rule.
      expect(await classicNames(env.query)).toEqual([]);
      const rules = await allRules(env, ctx, web, api);
      expect(Object.keys(rules).filter((g) => g.includes('k8s-elb-'))).toEqual([]);
      expect(rules[`cluster-vpc/${CLB_CLUSTER}-nodes`]).toEqual([]);
    } catch (err) {
      throw ccmFailure('handover', err, run?.ccm.tail());
    } finally {
      await cleanup(
        run,
        env,
        ctx,
        [0, 1, 2].map((i) => nodeName(env, i)),
      );
    }
  }, 240_000);
});
