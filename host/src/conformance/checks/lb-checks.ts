// LoadBalancer through its life: ensure (twice: idempotent), ownership (GetLoadBalancer only for the plugin's own
// LBs), update with another node set, delete (twice: idempotent, never ImplementedElsewhere), gone afterwards; the
// cloud's own list of load balancers (lb-count-checks.ts) is read around the first ensure, the second and the delete.
// The checks run in order on one test Service with a fresh UID; later ones build on what earlier ones created.
import type { LoadBalancerStatus, Node, Service } from '../../abi/index.ts';
import { type Check, type CheckContext, count, expectOk, fail, showStatus, skip, statusKey } from '../check.ts';
import { strangerService } from '../fixture.ts';
import { describeOutcome, type Outcome } from '../probe.ts';
import {
  backendsAfterEnsureCheck,
  backendsAfterUpdateCheck,
  badAnnotationCheck,
  readBackends,
  updateMutatesCheck,
} from './backend-checks.ts';
import {
  deleteLeavesNoneCheck,
  ensureAddsCheck,
  repeatedEnsureAddsNoneCheck,
  snapshotLoadBalancers,
} from './lb-count-checks.ts';

const OTHER_CLUSTER_SUFFIX = '-other';

function needStatus(ctx: CheckContext): LoadBalancerStatus {
  if (!ctx.state.lbStatus) skip('needs the load balancer of the first ensure check');
  return ctx.state.lbStatus;
}

async function exists(ctx: CheckContext, clusterName: string, service: Service, what: string): Promise<boolean> {
  const got = expectOk(await ctx.probe.call('getLoadBalancer', { clusterName, service }), what);
  return got.exists;
}

/** Ensures again with `nodes`; fails unless the status is the first ensure's (`mismatch` words the difference). */
async function ensureSameStatus(
  ctx: CheckContext,
  nodes: Node[],
  what: string,
  mismatch: (got: string, first: string) => string,
): Promise<string> {
  const first = needStatus(ctx);
  const { clusterName, service } = ctx.fixture;
  const again = expectOk(await ctx.probe.call('ensureLoadBalancer', { clusterName, service, nodes }), what);
  if (statusKey(again.status) !== statusKey(first)) {
    fail(`${what} answered ${mismatch(showStatus(again.status), showStatus(first))}`);
  }
  return showStatus(again.status);
}

function deleteOk(outcome: Outcome<'ensureLoadBalancerDeleted'>, what: string): void {
  if (outcome.kind === 'ok') return;
  if (outcome.kind === 'violation' && outcome.rawCode === 'ImplementedElsewhere') {
    fail(`${what} answered ImplementedElsewhere, which EnsureLoadBalancerDeleted must never answer`);
  }
  fail(`${what} answered ${describeOutcome(outcome)}`);
}

export const loadBalancerChecks: Check[] = [
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'getLoadBalancerName: stable, one per Service',
    async run(ctx) {
      const { clusterName, service } = ctx.fixture;
      const a = expectOk(await ctx.probe.call('getLoadBalancerName', { clusterName, service }), 'getLoadBalancerName');
      const b = expectOk(await ctx.probe.call('getLoadBalancerName', { clusterName, service }), 'getLoadBalancerName');
      const other = strangerService(service);
      const c = expectOk(
        await ctx.probe.call('getLoadBalancerName', { clusterName, service: other }),
        'getLoadBalancerName',
      );
      if (a.name === '') fail('getLoadBalancerName answered an empty name');
      if (a.name !== b.name) fail(`getLoadBalancerName changed between calls: "${a.name}", then "${b.name}"`);
      if (a.name === c.name) fail(`Services ${service.name} and ${other.name} get the same name "${a.name}"`);
      ctx.state.lbName = a.name;
      return `"${a.name}"`;
    },
  },
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'getLoadBalancer before ensure: false',
    async run(ctx) {
      const { clusterName, service } = ctx.fixture;
      if (await exists(ctx, clusterName, service, 'getLoadBalancer')) {
        fail(
          `getLoadBalancer says a load balancer exists for Service ${service.namespace}/${service.name} (UID ${service.uid}), which was never ensured`,
        );
      }
      return 'exists: false';
    },
  },
  badAnnotationCheck,
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'ensureLoadBalancer creates, with an ingress',
    async run(ctx) {
      const { clusterName, service, initialNodes: nodes } = ctx.fixture;
      await snapshotLoadBalancers(ctx, 'beforeEnsure');
      ctx.state.lbCreated = true;
      const outcome = await ctx.probe.call('ensureLoadBalancer', { clusterName, service, nodes });
      await snapshotLoadBalancers(ctx, 'afterEnsure');
      const got = expectOk(outcome, 'ensureLoadBalancer');
      if (got.status.ingress.length === 0 || got.status.ingress.every((i) => i.ip === '' && i.hostname === '')) {
        fail(`ensureLoadBalancer answered ${showStatus(got.status)}: no ingress IP or hostname`);
      }
      ctx.state.lbStatus = got.status;
      return `${showStatus(got.status)} for ${count(nodes.length, 'node')}`;
    },
  },
  ensureAddsCheck,
  backendsAfterEnsureCheck,
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'ensureLoadBalancer is idempotent',
    async run(ctx) {
      try {
        return await ensureSameStatus(
          ctx,
          ctx.fixture.initialNodes,
          'second ensureLoadBalancer',
          (got, first) => `${got}, the first ${first}: ensure must update, not create another`,
        );
      } finally {
        if (ctx.state.lbStatus) await snapshotLoadBalancers(ctx, 'afterRepeatedEnsure');
      }
    },
  },
  repeatedEnsureAddsNoneCheck,
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'getLoadBalancer after ensure: same status',
    async run(ctx) {
      const first = needStatus(ctx);
      const { clusterName, service } = ctx.fixture;
      const got = expectOk(await ctx.probe.call('getLoadBalancer', { clusterName, service }), 'getLoadBalancer');
      if (!got.exists) fail('getLoadBalancer says the ensured load balancer does not exist');
      if (statusKey(got.status) !== statusKey(first)) {
        fail(`getLoadBalancer answered ${showStatus(got.status)}, ensure ${showStatus(first)}`);
      }
      return showStatus(got.status);
    },
  },
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'getLoadBalancer only for its own LBs',
    async run(ctx) {
      needStatus(ctx);
      const { clusterName, service } = ctx.fixture;
      const cases: Array<[string, string, Service]> = [
        ['a Service it never created', clusterName, strangerService(service)],
        ['the same Service under another UID', clusterName, { ...service, uid: strangerService(service).uid }],
        ['the same Service of another cluster', clusterName + OTHER_CLUSTER_SUFFIX, service],
      ];
      for (const [what, cluster, svc] of cases) {
        if (await exists(ctx, cluster, svc, `getLoadBalancer(${what})`)) fail(`getLoadBalancer is true for ${what}`);
      }
      return `false for ${cases.map((c) => c[0]).join('; ')}`;
    },
  },
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'updateLoadBalancer with another node set',
    async run(ctx) {
      const first = needStatus(ctx);
      const { clusterName, service, updatedNodes: nodes } = ctx.fixture;
      const mark = ctx.cloud.mark();
      expectOk(await ctx.probe.call('updateLoadBalancer', { clusterName, service, nodes }), 'updateLoadBalancer');
      ctx.state.updateMutations = ctx.cloud.mutationsSince(mark).length;
      // Read now: the ensure below would hide an update that ignored its node list.
      // A probe failure is the backends check's verdict, not this one's.
      if (ctx.fixture.backendProbe) ctx.state.backendsAfterUpdate = await readBackends(ctx).catch((e: Error) => e);
      const got = expectOk(
        await ctx.probe.call('getLoadBalancer', { clusterName, service }),
        'getLoadBalancer after update',
      );
      if (!got.exists || statusKey(got.status) !== statusKey(first)) {
        fail(
          `after updateLoadBalancer, getLoadBalancer answered exists ${got.exists}, ${showStatus(got.status)}; before ${showStatus(first)}`,
        );
      }
      return `${ctx.fixture.initialNodes.length} -> ${nodes.length} nodes`;
    },
  },
  updateMutatesCheck,
  backendsAfterUpdateCheck,
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'ensureLoadBalancer after update: same status',
    run: (ctx) =>
      ensureSameStatus(
        ctx,
        ctx.fixture.updatedNodes,
        'ensureLoadBalancer after update',
        (got, first) => `${got}, before ${first}`,
      ),
  },
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'ensureLoadBalancerDeleted, then get is false',
    async run(ctx) {
      needStatus(ctx);
      const { clusterName, service } = ctx.fixture;
      const outcome = await ctx.probe.call('ensureLoadBalancerDeleted', { clusterName, service });
      await snapshotLoadBalancers(ctx, 'afterDelete');
      deleteOk(outcome, 'ensureLoadBalancerDeleted');
      if (await exists(ctx, clusterName, service, 'getLoadBalancer after delete')) {
        fail('getLoadBalancer still says it exists after ensureLoadBalancerDeleted');
      }
      ctx.state.lbCreated = false;
      return 'deleted';
    },
  },
  deleteLeavesNoneCheck,
  {
    group: 'loadBalancer',
    capability: 'loadBalancer',
    title: 'ensureLoadBalancerDeleted: idempotent, not ImplementedElsewhere',
    async run(ctx) {
      const { clusterName, service } = ctx.fixture;
      deleteOk(
        await ctx.probe.call('ensureLoadBalancerDeleted', { clusterName, service }),
        'ensureLoadBalancerDeleted (again)',
      );
      const stranger = strangerService(service);
      deleteOk(
        await ctx.probe.call('ensureLoadBalancerDeleted', { clusterName, service: stranger }),
        'ensureLoadBalancerDeleted (a Service it never created)',
      );
      return 'ok twice, and for a Service it never created';
    },
  },
];

/** Best effort: remove the test Service's load balancer if a failed check left it behind. */
export async function cleanUpLoadBalancer(ctx: CheckContext): Promise<void> {
  if (!ctx.state.lbCreated) return;
  const { clusterName, service } = ctx.fixture;
  await ctx.probe.call('ensureLoadBalancerDeleted', { clusterName, service });
}
