// Runs the differential fuzz: each case's requests go to Http1Pool and to node:http at the same time, against one
// raw server; per request the outcomes are judged (judge.ts) and checked for cross-request delivery.
import { makeCase } from './cases.ts';
import { type Outcome, runNode, runOurs } from './clients.ts';
import { crossDelivered, judge } from './judge.ts';
import { startFuzzServer } from './server.ts';

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Cases in flight at once (default 48). */
  concurrency?: number;
  /** Unexplained divergences kept in the report as examples (default 20). */
  maxExamples?: number;
  onProgress?: (done: number) => void;
}

export interface Divergence {
  case: number;
  request: number;
  kind: string;
  why: string;
  ours: string;
  node: string;
  answer: string;
}

export interface FuzzReport {
  cases: number;
  requests: number;
  seed: number;
  duration_s: number;
  agreements: number;
  divergences: number;
  allowed_divergences: number;
  allowed_by_rule: Record<string, number>;
  /** Requests that received bytes the server sent for another request: Http1Pool's (must be 0) and node's. */
  cross_request_deliveries: number;
  /** Requests node answered with another request's bytes where Http1Pool did not (not counted as divergences). */
  node_cross_request_deliveries: number;
  /** Outcomes by answer kind: [requests, both ok, both failed]. */
  by_kind: Record<string, [number, number, number]>;
  examples: Divergence[];
}

const describe = (o: Outcome): string =>
  o.ok
    ? `${o.status} ${JSON.stringify(o.headers)} ${JSON.stringify(o.body.toString('latin1').slice(0, 120))}`
    : `error ${o.error}${o.reason ? ` (${o.reason})` : ''}`;

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const server = await startFuzzServer();
  const report: FuzzReport = {
    cases: options.cases,
    requests: 0,
    seed: options.seed,
    duration_s: 0,
    agreements: 0,
    divergences: 0,
    allowed_divergences: 0,
    allowed_by_rule: {},
    cross_request_deliveries: 0,
    node_cross_request_deliveries: 0,
    by_kind: {},
    examples: [],
  };
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < options.cases) {
      const c = makeCase(options.seed, next++);
      server.register(c);
      const [ours, node] = await Promise.all([runOurs(server.origin, c), runNode(server.origin, c)]);
      for (let k = 0; k < c.requests.length; k++) {
        record(
          report,
          c,
          k,
          ours[k] as Outcome,
          node[k] as Outcome,
          server.answered('node', c.id, k) === 0,
          options.maxExamples ?? 20,
        );
      }
      server.unregister(c.id);
      options.onProgress?.(++done);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 48 }, worker));
  } finally {
    await server.close();
  }
  report.duration_s = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

function record(
  report: FuzzReport,
  c: ReturnType<typeof makeCase>,
  k: number,
  ours: Outcome,
  node: Outcome,
  nodeUnanswered: boolean,
  maxExamples: number,
): void {
  report.requests++;
  const kind = c.answers[k]?.kind ?? '?';
  const tally = (report.by_kind[kind] ??= [0, 0, 0]);
  tally[0]++;
  if (ours.ok && node.ok) tally[1]++;
  if (!ours.ok && !node.ok) tally[2]++;
  const oursCrossed = crossDelivered(c, k, ours);
  const nodeCrossed = crossDelivered(c, k, node);
  if (oursCrossed) report.cross_request_deliveries++;
  if (nodeCrossed) report.node_cross_request_deliveries++;
  // A request node answered with another's bytes is node's fault, counted above, whatever Http1Pool did.
  if (nodeCrossed && !oursCrossed) return;
  const verdict = judge(ours, node, nodeUnanswered);
  if (verdict.kind === 'agree') report.agreements++;
  else if (verdict.kind === 'allowed') {
    report.allowed_divergences++;
    report.allowed_by_rule[verdict.rule] = (report.allowed_by_rule[verdict.rule] ?? 0) + 1;
  } else {
    report.divergences++;
    if (report.examples.length < maxExamples) {
      report.examples.push({
        case: c.id,
        request: k,
        kind,
        why: verdict.why,
        ours: describe(ours),
        node: describe(node),
        answer: JSON.stringify(c.answers[k]?.bytes.toString('latin1').slice(0, 400)),
      });
    }
  }
}
