// The load balancers in the cloud, counted by the fixture's loadBalancerProbe (a GET listing them, the host's own):
// the first ensure adds at least one, a repeated ensure adds none and replaces none, and after delete none of those
// the run added is left. A provider answering the same status while it creates another load balancer on every ensure,
// or whose delete forgets the load balancer it leaves in the cloud, passes every check that only asks the plugin.
import { type Check, type CheckContext, count, fail, type LoadBalancerCounts, skip } from '../check.ts';
import { valuesAt } from '../fixture-backends.ts';
import { fillProbeUrl, getJson, requireProbe } from './cloud-probe.ts';

/** The names (or IDs) of the load balancers the probe lists now. */
async function listLoadBalancers(ctx: CheckContext): Promise<string[]> {
  const probe = ctx.fixture.loadBalancerProbe!;
  const url = fillProbeUrl(ctx, probe.url);
  const values = valuesAt(await getJson(ctx, url, 'load-balancer probe'), probe.path);
  if (typeof values === 'string') fail(`load-balancer probe GET ${url}: ${values}`);
  return values;
}

/**
 * Lists the load balancers into `counts[when]` when the fixture has the probe; a failed read is kept for the check
 * that judges that point, never thrown into the check that took the snapshot.
 */
export async function snapshotLoadBalancers(ctx: CheckContext, when: keyof LoadBalancerCounts): Promise<void> {
  if (!ctx.fixture.loadBalancerProbe) return;
  ctx.state.lbCounts[when] = await listLoadBalancers(ctx).catch((err: unknown) =>
    err instanceof Error ? err : new Error(String(err)),
  );
}

/** The snapshots the check needs, or why it cannot judge. */
function snapshots(ctx: CheckContext, ...when: Array<keyof LoadBalancerCounts>): string[][] {
  requireProbe(ctx, 'loadBalancers');
  return when.map((w) => {
    const listed = ctx.state.lbCounts[w];
    if (listed === undefined) skip('needs the load balancer of the first ensure check');
    if (listed instanceof Error) throw listed;
    return listed;
  });
}

const added = (before: readonly string[], after: readonly string[]): string[] => {
  const had = new Set(before);
  return after.filter((name) => !had.has(name));
};

const show = (names: readonly string[]): string => names.join(', ');

export const ensureAddsCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'cloud: ensure adds a load balancer',
  async run(ctx) {
    const [before, after] = snapshots(ctx, 'beforeEnsure', 'afterEnsure');
    const made = added(before!, after!);
    if (made.length === 0) {
      fail(
        `ensureLoadBalancer answered a status, but the load-balancer probe lists no new load balancer ` +
          `(${count(after!.length, 'load balancer')}, as before): ensure must create it in the cloud`,
      );
    }
    return `${count(before!.length, 'load balancer')} -> ${after!.length}: ${show(made)}`;
  },
};

export const repeatedEnsureAddsNoneCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'cloud: a repeated ensure adds none',
  async run(ctx) {
    const [first, again] = snapshots(ctx, 'afterEnsure', 'afterRepeatedEnsure');
    const more = added(first!, again!);
    const gone = added(again!, first!);
    const problems: string[] = [];
    if (more.length > 0) {
      problems.push(
        `the second ensureLoadBalancer added ${show(more)} (${count(first!.length, 'load balancer')} -> ${again!.length}): ` +
          'ensure must find the load balancer it made and update it, not create another',
      );
    }
    if (gone.length > 0) {
      problems.push(`the second ensureLoadBalancer removed ${show(gone)}: ensure must update in place`);
    }
    if (problems.length > 0) fail(problems.join('; '));
    return `${count(again!.length, 'load balancer')}, as after the first`;
  },
};

export const deleteLeavesNoneCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'cloud: none left after delete',
  async run(ctx) {
    const [before, after] = snapshots(ctx, 'beforeEnsure', 'afterDelete');
    const left = added(before!, after!);
    if (left.length > 0) {
      fail(
        `after ensureLoadBalancerDeleted the cloud still holds ${show(left)}, which the run's ensures added: ` +
          'delete must remove every load balancer ensure created',
      );
    }
    return `${count(after!.length, 'load balancer')}, as before the first ensure`;
  },
};
