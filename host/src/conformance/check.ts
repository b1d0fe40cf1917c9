// The shape of a conformance check and the helpers checks assert with. A check returns a short detail on success,
// throws CheckFailed with the reason, CheckSkipped when it cannot run for a reason the report shows, or
// CheckIncomplete when it cannot run and nothing excuses that (no probe, and no reason why the cloud has none).
import type { Capability, DescribeResponse, LoadBalancerStatus, MethodName, Responses } from '../abi/index.ts';
import type { Fixture } from './fixture.ts';
import { describeOutcome, type Outcome, type Probe } from './probe.ts';

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'incomplete';

export interface CheckResult {
  group: string;
  title: string;
  status: CheckStatus;
  /** Why it failed or was skipped; what was seen when it passed. */
  detail: string;
  ms: number;
}

export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}

export class CheckIncomplete extends Error {
  override name = 'CheckIncomplete';
}

/** What the load-balancer probe listed at each point of the load balancer's life (or why it could not). */
export interface LoadBalancerCounts {
  beforeEnsure?: string[] | Error;
  afterEnsure?: string[] | Error;
  afterRepeatedEnsure?: string[] | Error;
  afterDelete?: string[] | Error;
}

/** What checks learn and later checks build on. */
export interface SharedState {
  /** Provider IDs the plugin gave for fixture nodes (by node name), for nodes the fixture lists without one. */
  providerIDs: Map<string, string>;
  /** The status of the first EnsureLoadBalancer; undefined until it succeeded. */
  lbStatus: LoadBalancerStatus | undefined;
  /** What getLoadBalancerName answered (the probe's {lb}). */
  lbName: string | undefined;
  /** Mutating cloud requests the updateLoadBalancer call made; undefined until it ran. */
  updateMutations: number | undefined;
  /** Backends the probe read right after the update, before anything else touched the load balancer. */
  backendsAfterUpdate: string[] | Error | undefined;
  /** The cloud's load balancers as the fixture's loadBalancerProbe listed them. */
  lbCounts: LoadBalancerCounts;
  /** Whether the test Service may still have a load balancer (cleaned up at the end). */
  lbCreated: boolean;
  routeCreated: boolean;
}

export interface CheckContext {
  probe: Probe;
  fixture: Fixture;
  description: DescribeResponse;
  declared: ReadonlySet<Capability>;
  /** Names of the module's exported functions. */
  exports: ReadonlySet<string>;
  state: SharedState;
  /** Every HTTP request the plugin asked the broker for. */
  cloud: CloudRequests;
  /** A GET made by the host under the plugin's allow-list and credentials (the backend probe). */
  hostGet: (url: string) => Promise<{ status: number; body: string }>;
  /** Credential hosts that reach no allowed host, or one only through the default-port rule. */
  credentialWarnings: readonly string[] | undefined;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The plugin's HTTP requests as the broker saw them, for "did it change anything in the cloud". */
export class CloudRequests {
  readonly #seen: Array<{ method: string; url: string }> = [];

  record(method: string, url: string): void {
    this.#seen.push({ method, url });
  }

  /** A position to count from. */
  mark(): number {
    return this.#seen.length;
  }

  /** "PUT http://…" for every mutating request since `mark`. */
  mutationsSince(mark: number): string[] {
    return this.#seen
      .slice(mark)
      .filter((r) => MUTATING.has(r.method))
      .map((r) => `${r.method} ${r.url}`);
  }
}

export interface Check {
  group: string;
  title: string;
  /** Checks of a capability the plugin does not declare are skipped. */
  capability?: Capability;
  run(ctx: CheckContext): Promise<string>;
}

export function fail(reason: string): never {
  throw new CheckFailed(reason);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

export function incomplete(reason: string): never {
  throw new CheckIncomplete(reason);
}

/** The value of a successful call; any other outcome fails the check, saying what came back. */
export function expectOk<M extends MethodName>(outcome: Outcome<M>, what: string): Responses[M] {
  if (outcome.kind === 'ok') return outcome.value;
  return fail(`${what} answered ${describeOutcome(outcome)}`);
}

/** Passes only on an error with `code`. */
export function expectCode<M extends MethodName>(outcome: Outcome<M>, code: string, what: string): void {
  if (outcome.kind === 'error' && outcome.error.code === code) return;
  fail(`${what} answered ${describeOutcome(outcome)}; expected ${code}`);
}

/** Canonical JSON of a load-balancer status, for comparing answers regardless of key order. */
export function statusKey(status: LoadBalancerStatus): string {
  return JSON.stringify(
    status.ingress.map((i) => ({
      ip: i.ip,
      hostname: i.hostname,
      ipMode: i.ipMode,
      ports: i.ports.map((p) => [p.port, p.protocol, p.error]),
    })),
  );
}

export function showStatus(status: LoadBalancerStatus): string {
  const parts = status.ingress.map((i) => [i.ip, i.hostname].filter((s) => s !== '').join('/') || '(empty)');
  return parts.length === 0 ? 'no ingress' : `ingress ${parts.join(', ')}`;
}

/** Runs `each` for every item and fails with all their reasons: one bad node must not hide the others. */
export async function forEach<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  const problems: string[] = [];
  for (const item of items) {
    try {
      await each(item);
    } catch (err) {
      if (!(err instanceof CheckFailed)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) fail(problems.join('; '));
}

/** "1 node", "3 nodes". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
