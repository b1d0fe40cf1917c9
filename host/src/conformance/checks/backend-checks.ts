// What the load balancer sends traffic to. Upstream's contract is that the node list of EnsureLoadBalancer and
// UpdateLoadBalancer is the backend set, minus what the provider documents it filters out: the kit reads the backends
// from the cloud with the fixture's probe (a GET the host makes, never the plugin) and compares them with the nodes
// it sent, minus the fixture's `filtered` nodes. Without a probe these checks are skipped, visibly.
import { randomUUID } from 'node:crypto';
import type { Node } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { type Check, type CheckContext, count, fail, skip } from '../check.ts';
import { valuesAt } from '../fixture-backends.ts';
import { describeOutcome } from '../probe.ts';

const NO_PROBE = 'no backend probe';

/** The instance ID in a provider ID: what follows the last `/` (`devcloud://i-1`, `aws:///us-east-1a/i-1`). */
function instanceIdOf(providerID: string): string {
  return providerID.slice(providerID.lastIndexOf('/') + 1);
}

/** How the cloud names `node` as a backend, under the probe's identity. */
function identityOf(ctx: CheckContext, node: Node): string {
  const probe = ctx.fixture.backendProbe!;
  if (probe.identity === 'address') return node.addresses.find((a) => a.type === probe.addressType)!.address;
  const providerID = node.providerID || ctx.state.providerIDs.get(node.name);
  if (!providerID) {
    fail(`no providerID is known for node ${node.name}: give one in the fixture (or let instanceMetadata find it)`);
  }
  return instanceIdOf(providerID);
}

function probeUrl(ctx: CheckContext): string {
  const { url } = ctx.fixture.backendProbe!;
  const ingress = ctx.state.lbStatus?.ingress[0];
  const values: Record<string, string | undefined> = {
    lb: ctx.state.lbName,
    ingress: ingress ? ingress.ip || ingress.hostname : undefined,
  };
  return url.replace(/\{(lb|ingress)\}/g, (_m, key: string) => {
    const value = values[key];
    if (!value) skip(`the probe needs {${key}}, which no earlier check found`);
    // Encoding leaves dots alone, and a URL drops `.` and walks up with `..`: the GET would read another resource.
    if (value === '.' || value === '..') {
      fail(`{${key}} is "${value}", a dot segment in a URL: the probe cannot read that load balancer's backends`);
    }
    return encodeURIComponent(value);
  });
}

/** The backends the cloud holds now, read with the probe; skips without one. */
export async function readBackends(ctx: CheckContext): Promise<string[]> {
  const probe = ctx.fixture.backendProbe;
  if (!probe) skip(NO_PROBE);
  const url = probeUrl(ctx);
  let answer;
  try {
    answer = await ctx.hostGet(url);
  } catch (err) {
    fail(`backend probe GET ${url} failed: ${errorMessage(err)}`);
  }
  if (answer.status !== 200) fail(`backend probe GET ${url} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  let doc: unknown;
  try {
    doc = JSON.parse(answer.body);
  } catch {
    fail(`backend probe GET ${url} answered no JSON: ${answer.body.slice(0, 200)}`);
  }
  const values = valuesAt(doc, probe.path);
  if (typeof values === 'string') fail(`backend probe GET ${url}: ${values}`);
  return values;
}

/** Fails, saying what to fix, unless `observed` are exactly `nodes` minus the fixture's filtered ones. */
function expectBackends(ctx: CheckContext, after: string, nodes: readonly Node[], observed: string[]): string {
  const { filtered } = ctx.fixture;
  const wanted = new Map<string, string>();
  const excluded = new Map<string, string>();
  for (const node of nodes) {
    const id = identityOf(ctx, node);
    if (filtered.has(node.name)) excluded.set(id, node.name);
    else wanted.set(id, node.name);
  }
  const seen = new Set(observed);
  const problems: string[] = [];
  const missing = [...wanted].filter(([id]) => !seen.has(id)).map(([id, name]) => `${name} (${id})`);
  if (missing.length > 0) {
    problems.push(
      `missing ${missing.join(', ')}: every node of the request is a backend unless the provider documents filtering it out`,
    );
  }
  for (const id of seen) {
    const name = excluded.get(id);
    if (name !== undefined) {
      problems.push(`${name} (${id}) is a backend but must be left out (${filtered.get(name)}): apply the exclusion`);
    } else if (!wanted.has(id)) {
      problems.push(`${id} is a backend but no node of the request is: drop backends of nodes no longer sent`);
    }
  }
  const show = (ids: Iterable<string>): string => `[${[...ids].sort().join(', ')}]`;
  if (problems.length > 0) {
    fail(`after ${after} the backends are ${show(seen)}, expected ${show(wanted.keys())}: ${problems.join('; ')}`);
  }
  const left = excluded.size > 0 ? `, ${excluded.size} filtered out` : '';
  return `${count(wanted.size, 'backend')}${left}`;
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
    if (!ctx.fixture.backendProbe) skip(NO_PROBE);
    const observed = ctx.state.backendsAfterUpdate;
    if (!observed) skip('needs the update check');
    if (observed instanceof Error) throw observed;
    return expectBackends(ctx, 'updateLoadBalancer', ctx.fixture.updatedNodes, observed);
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
