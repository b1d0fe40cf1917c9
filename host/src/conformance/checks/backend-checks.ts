// What the load balancer sends traffic to. Upstream's contract is that the node list of EnsureLoadBalancer and
// UpdateLoadBalancer is the backend set, minus what the provider documents it filters out: the kit reads the backends
// from the cloud with the fixture's probe (a GET the host makes, never the plugin) and compares them with the nodes
// it sent, minus the fixture's `filtered` nodes. Without a probe these checks are incomplete (the verdict is not
// PASSED), unless the fixture says why the cloud cannot be probed: then they are skipped with that reason.
import { randomUUID } from 'node:crypto';
import type { Node } from '../../abi/index.ts';
import { type Check, type CheckContext, count, fail, skip } from '../check.ts';
import { type BackendProbe, itemsAt, valuesAt } from '../fixture-backends.ts';
import { describeOutcome } from '../probe.ts';
import { fillProbeUrl, getJson, requireProbe } from './cloud-probe.ts';

/** The instance ID in a provider ID: what follows the last `/` (`devcloud://i-1`, `aws:///us-east-1a/i-1`). */
function instanceIdOf(providerID: string): string {
  return providerID.slice(providerID.lastIndexOf('/') + 1);
}

/** How the cloud names `node` as a backend, under the probe's identity. */
function identityOf(ctx: CheckContext, node: Node): string {
  const probe = ctx.fixture.backendProbe!;
  if (probe.identity === 'address') return node.addresses.find((a) => a.type === probe.addressType)!.address;
  const providerID = node.providerID || ctx.state.providerIDs.get(node.name);
  if (providerID) return instanceIdOf(providerID);
  if (ctx.declared.has('instancesV2')) {
    fail(
      `no providerID is known for node ${node.name}: the fixture gives none, and instanceMetadata(${node.name}) ` +
        'gave none the kit could accept (see the instanceMetadata checks): fix the providerID instanceMetadata answers',
    );
  }
  fail(
    `no providerID is known for node ${node.name}: the plugin declares no instancesV2 to find it, ` +
      'so give it in the fixture (nodes[].providerID)',
  );
}

/** The backends in the probe's answer: of the one load balancer there (with `loadBalancers`, exactly one). */
function backendsIn(doc: unknown, url: string, probe: BackendProbe): string[] {
  let lb = doc;
  if (probe.loadBalancers !== undefined) {
    const lbs = itemsAt(doc, probe.loadBalancers);
    if (typeof lbs === 'string') fail(`backend probe GET ${url}: ${lbs}`);
    if (lbs.length === 0) fail(`backend probe GET ${url} found no load balancer at ${probe.loadBalancers}`);
    if (lbs.length > 1) {
      // Each on its own: merged, a second load balancer with the same members would go unseen.
      const each = lbs.map((one, i) => {
        const values = valuesAt(one, probe.path);
        return `#${i + 1} ${typeof values === 'string' ? values : `[${values.sort().join(', ')}]`}`;
      });
      fail(
        `backend probe GET ${url} found ${lbs.length} load balancers for the Service (${each.join('; ')}): ` +
          'a Service has one load balancer; ensure must find and update it, not create another',
      );
    }
    lb = lbs[0];
  }
  const values = valuesAt(lb, probe.path);
  if (typeof values === 'string') fail(`backend probe GET ${url}: ${values}`);
  return values;
}

/** The backends the cloud holds now, read with the probe; skips (or is incomplete) without one. */
export async function readBackends(ctx: CheckContext): Promise<string[]> {
  requireProbe(ctx, 'backends');
  const probe = ctx.fixture.backendProbe!;
  const url = fillProbeUrl(ctx, probe.url);
  return backendsIn(await getJson(ctx, url, 'backend probe'), url, probe);
}

interface Expected {
  /** Backend identity -> node name, for the nodes that must be backends, and for the filtered ones. */
  wanted: Map<string, string>;
  excluded: Map<string, string>;
}

function expected(ctx: CheckContext, nodes: readonly Node[]): Expected {
  const wanted = new Map<string, string>();
  const excluded = new Map<string, string>();
  for (const node of nodes)
    (ctx.fixture.filtered.has(node.name) ? excluded : wanted).set(identityOf(ctx, node), node.name);
  return { wanted, excluded };
}

const show = (ids: Iterable<string>): string => `[${[...ids].sort().join(', ')}]`;

/** What is wrong with `seen`, each problem with its likeliest cause. */
function backendProblems(ctx: CheckContext, { wanted, excluded }: Expected, seen: Set<string>): string[] {
  const missing = [...wanted].filter(([id]) => !seen.has(id)).map(([id, name]) => `${name} (${id})`);
  const strangers = [...seen].filter((id) => !wanted.has(id) && !excluded.has(id));
  const leftIn = [...seen].filter((id) => excluded.has(id));
  const problems: string[] = [];
  if (missing.length > 0) {
    problems.push(
      `missing ${missing.join(', ')}: every node of the request is a backend unless the provider documents filtering it out`,
    );
  }
  if (strangers.length > 0) {
    problems.push(
      `${strangers.join(', ')} ${strangers.length === 1 ? 'is a backend' : 'are backends'} but no node of the ` +
        'request: the backends must come from the node list sent (dropping nodes no longer sent)',
    );
  }
  for (const id of leftIn) {
    const name = excluded.get(id)!;
    const why = ctx.fixture.filtered.get(name);
    // With other differences the exclusion is not the cause: the node list itself is not followed.
    problems.push(
      missing.length + strangers.length === 0
        ? `${name} (${id}) is a backend but must be left out (${why}): apply the exclusion`
        : `${name} (${id}) is a backend but must be left out (${why}), and the other backends are not the nodes sent either: build the backends from the node list, then leave out what the provider filters`,
    );
  }
  return problems;
}

/** Fails, saying what to fix, unless `observed` are exactly `nodes` minus the fixture's filtered ones. */
function expectBackends(ctx: CheckContext, after: string, nodes: readonly Node[], observed: string[]): string {
  const want = expected(ctx, nodes);
  const seen = new Set(observed);
  const problems = backendProblems(ctx, want, seen);
  if (problems.length > 0) {
    fail(`after ${after} the backends are ${show(seen)}, expected ${show(want.wanted.keys())}: ${problems.join('; ')}`);
  }
  const left = want.excluded.size > 0 ? `, ${want.excluded.size} filtered out` : '';
  return `${count(want.wanted.size, 'backend')}${left}`;
}

/** After an update: backends that are still exactly the ensure's say the update ignored its node list. */
function expectUpdatedBackends(ctx: CheckContext, observed: string[]): string {
  const before = [...expected(ctx, ctx.fixture.initialNodes).wanted.keys()].sort().join(',');
  const after = [...expected(ctx, ctx.fixture.updatedNodes).wanted.keys()].sort().join(',');
  if (before !== after && [...new Set(observed)].sort().join(',') === before) {
    fail(
      `after updateLoadBalancer the backends are ${show(observed)}, still those of ensureLoadBalancer's node list, ` +
        `expected ${show(after.split(',').filter((s) => s !== ''))}: updateLoadBalancer ignored the nodes it was sent`,
    );
  }
  return expectBackends(ctx, 'updateLoadBalancer', ctx.fixture.updatedNodes, observed);
}

/** Names of `nodes` that should be backends (the fixture's filtered ones left out), sorted. */
function expectedNames(ctx: CheckContext, nodes: readonly Node[]): string {
  return nodes
    .map((n) => n.name)
    .filter((n) => !ctx.fixture.filtered.has(n))
    .sort()
    .join(',');
}

export const backendsAfterEnsureCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'backends after ensure: exactly the nodes sent',
  async run(ctx) {
    if (!ctx.state.lbStatus) skip('needs the load balancer of the first ensure check');
    return expectBackends(ctx, 'ensureLoadBalancer', ctx.fixture.initialNodes, await readBackends(ctx));
  },
};

export const backendsAfterUpdateCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'backends after update: exactly the nodes sent',
  async run(ctx) {
    requireProbe(ctx, 'backends');
    const observed = ctx.state.backendsAfterUpdate;
    if (!observed) skip('needs the update check');
    if (observed instanceof Error) throw observed;
    return expectUpdatedBackends(ctx, observed);
  },
};

export const updateMutatesCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'update with a changed node set changes the cloud',
  async run(ctx) {
    const mutations = ctx.state.updateMutations;
    if (mutations === undefined) skip('needs the update check');
    const { initialNodes, updatedNodes } = ctx.fixture;
    if (expectedNames(ctx, initialNodes) === expectedNames(ctx, updatedNodes)) {
      skip('the update sends the same backends (only filtered nodes differ)');
    }
    if (mutations === 0) {
      fail(
        'updateLoadBalancer got another node set and made no POST, PUT, PATCH or DELETE request: update the backends to the nodes sent',
      );
    }
    return count(mutations, 'mutating request');
  },
};

export const badAnnotationCheck: Check = {
  group: 'loadBalancer',
  capability: 'loadBalancer',
  title: 'bad annotation: Invalid naming it, cloud untouched',
  async run(ctx) {
    const bad = ctx.fixture.badAnnotation;
    if (!bad) skip('the fixture names no service.badAnnotation');
    const { clusterName, service, initialNodes: nodes } = ctx.fixture;
    const annotated = {
      ...service,
      name: `${service.name}-bad-annotation`,
      uid: randomUUID(),
      annotations: { ...service.annotations, [bad.key]: bad.value },
    };
    const mark = ctx.cloud.mark();
    const outcome = await ctx.probe.call('ensureLoadBalancer', { clusterName, service: annotated, nodes });
    const mutations = ctx.cloud.mutationsSince(mark);
    if (mutations.length > 0) {
      // Leave the cloud as it was before judging (best effort: the verdict is the failure below).
      await ctx.probe.call('ensureLoadBalancerDeleted', { clusterName, service: annotated });
    }
    const shown = `${bad.key}: ${JSON.stringify(bad.value)}`;
    const problems: string[] = [];
    if (outcome.kind !== 'error' || outcome.error.code !== 'Invalid') {
      problems.push(`ensureLoadBalancer with ${shown} answered ${describeOutcome(outcome)}; expected Invalid`);
    } else if (!outcome.error.message.includes(bad.key)) {
      problems.push(`the Invalid error does not name the annotation ${bad.key}: "${outcome.error.message}"`);
    }
    if (mutations.length > 0) {
      problems.push(`it changed the cloud before refusing (${mutations.join(', ')}): check annotations first`);
    }
    if (problems.length > 0) fail(problems.join('; '));
    return `Invalid: ${outcome.kind === 'error' ? outcome.error.message : ''}`;
  },
};
