// The figures of a run: faults by kind, failovers and their time to the new leader's first reconcile, violations,
// mutations by a non-leader, reconcile errors by reason, plugin instance restarts, and each replica's RSS, heap and
// open file descriptors with their least-squares slope per hour after warm-up.
import { percentile, formatTable } from '../measure/index.ts';
import type { Failover, FaultKind } from './faults.ts';
import type { Violation } from './invariants.ts';
import type { ResourceSample } from './replicas.ts';

export interface ReplicaFigures {
  name: string;
  /** Seconds of life sampled, and samples after warm-up. */
  sampledSeconds: number;
  samples: number;
  rssMb: { first: number; last: number; max: number; slopePerHour: number | undefined };
  heapMb: { first: number; last: number; max: number; slopePerHour: number | undefined };
  externalMb: { first: number; last: number; max: number; slopePerHour: number | undefined };
  threads: { first: number; last: number; max: number; slopePerHour: number | undefined };
  fds: { first: number; last: number; max: number; slopePerHour: number | undefined };
  exitCode: number | null | undefined;
}

export interface ChaosFigures {
  mode: 'chaos' | 'soak';
  runtime: string;
  seed: number;
  minutes: number;
  driverSteps: Record<string, number>;
  driverStepsFailed: number;
  faults: Record<FaultKind, number>;
  faultsSkipped: string[];
  failovers: Failover[];
  leaseTransitions: number;
  toFirstReconcileMs: { p50: number | undefined; max: number | undefined; goalMs: number };
  violations: Violation[];
  settleViolations: string[];
  settleMs: number;
  nonLeaderMutations: number;
  mutationsJudged: number;
  loadBalancerDeletesJudged: number;
  reconcileErrors: Record<string, number>;
  pluginInstanceRestarts: number;
  replicasStarted: number;
  replicas: ReplicaFigures[];
  /** Every resource sample of every replica (t in ms since the run started). */
  samples: Record<string, ResourceSample[]>;
}

/**
 * What the committed results file keeps of a run: every figure the tables and bench/README.md quote, without the
 * per-sample series and the list of failovers (those stay in the raw run).
 */
export interface ChaosSummary extends Omit<ChaosFigures, 'samples' | 'failovers' | 'replicas'> {
  failovers: { count: number; byKind: Record<string, number> };
  /** The replicas sampled after warm-up (those the summary table shows). */
  replicas: ReplicaFigures[];
}

export function chaosSummary(figures: ChaosFigures): ChaosSummary {
  const { samples: _samples, failovers, replicas, ...rest } = figures;
  const byKind: Record<string, number> = {};
  for (const f of failovers) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
  return {
    ...rest,
    failovers: { count: failovers.length, byKind },
    replicas: replicas.filter((r) => r.samples > 0),
  };
}

/** Least-squares slope of y over x (x in ms): units of y per hour; undefined with fewer than 3 points. */
export function slopePerHour(points: readonly (readonly [number, number])[]): number | undefined {
  if (points.length < 3) return undefined;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : Math.round((num / den) * 3_600_000 * 100) / 100;
}

function series(samples: readonly ResourceSample[], pick: (s: ResourceSample) => number | undefined) {
  const points = samples.flatMap((s) => {
    const y = pick(s);
    return y === undefined ? [] : [[s.t, y] as const];
  });
  const ys = points.map(([, y]) => y);
  return {
    first: ys[0] ?? 0,
    last: ys.at(-1) ?? 0,
    max: ys.length === 0 ? 0 : Math.max(...ys),
    slopePerHour: slopePerHour(points),
  };
}

/** A replica's resource figures, the slopes from samples taken `warmupMs` after its first one. */
export function replicaFigures(
  name: string,
  samples: readonly ResourceSample[],
  warmupMs: number,
  exitCode: number | null | undefined,
): ReplicaFigures {
  const start = samples[0]?.t ?? 0;
  const warm = samples.filter((s) => s.t - start >= warmupMs);
  return {
    name,
    sampledSeconds: Math.round(((samples.at(-1)?.t ?? start) - start) / 1000),
    samples: warm.length,
    rssMb: series(warm, (s) => s.rssMb),
    heapMb: series(warm, (s) => s.heapMb),
    externalMb: series(warm, (s) => s.externalMb),
    threads: series(warm, (s) => s.threads),
    fds: series(warm, (s) => s.fds),
    exitCode,
  };
}

export function firstReconcile(failovers: readonly Failover[], goalMs: number): ChaosFigures['toFirstReconcileMs'] {
  const times = failovers
    .flatMap((f) => (f.toFirstReconcileMs === undefined ? [] : [f.toFirstReconcileMs]))
    .sort((a, b) => a - b);
  return { p50: times.length ? percentile(times, 50) : undefined, max: times.at(-1), goalMs };
}

const fmt = (v: number | undefined, unit = ''): string => (v === undefined ? '-' : `${v}${unit}`);

export function summaryTable(f: ChaosFigures): string {
  const rows: string[][] = [
    ['mode / seed / minutes', `${f.mode} / ${f.seed} / ${f.minutes}`],
    ['replicas run with', f.runtime],
    ['driver steps (failed)', `${Object.values(f.driverSteps).reduce((a, b) => a + b, 0)} (${f.driverStepsFailed})`],
    ['faults injected', `${Object.values(f.faults).reduce((a, b) => a + b, 0)}`],
    ...Object.entries(f.faults).map(([k, v]) => [`  ${k}`, String(v)]),
    ['lease transitions', String(f.leaseTransitions)],
    ['failovers measured (kill/pause)', String(f.failovers.length)],
    [
      '  to first reconcile p50 / max',
      `${fmt(f.toFirstReconcileMs.p50, ' ms')} / ${fmt(f.toFirstReconcileMs.max, ' ms')} (goal <= ${f.toFirstReconcileMs.goalMs} ms)`,
    ],
    ['invariant violations (continuous)', String(f.violations.length)],
    ['invariant violations (after settle)', `${f.settleViolations.length} (settled in ${f.settleMs} ms)`],
    ['mutations by a non-leader', `${f.nonLeaderMutations} of ${f.mutationsJudged}`],
    ['LB deletions checked against Services', String(f.loadBalancerDeletesJudged)],
    ['plugin instance restarts', String(f.pluginInstanceRestarts)],
    ['replicas started', String(f.replicasStarted)],
  ];
  const errors = Object.entries(f.reconcileErrors)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12);
  const resources = f.replicas
    .filter((r) => r.samples > 0)
    .map((r) => [
      r.name,
      `${r.sampledSeconds}`,
      `${r.rssMb.last} (${fmt(r.rssMb.slopePerHour)})`,
      `${r.heapMb.last} (${fmt(r.heapMb.slopePerHour)})`,
      `${r.externalMb.last} (${fmt(r.externalMb.slopePerHour)})`,
      `${r.threads.last}`,
      `${r.fds.last} (${fmt(r.fds.slopePerHour)})`,
      r.exitCode === undefined ? 'running' : r.exitCode === null ? 'killed' : String(r.exitCode),
    ]);
  return [
    formatTable(['figure', 'value'], rows),
    '',
    formatTable(
      ['reconcile error (log message)', 'count'],
      errors.map(([k, v]) => [k.slice(0, 90), String(v)]),
    ),
    '',
    formatTable(
      [
        'replica',
        'sampled s',
        'RSS MB (slope/h)',
        'heap MB (slope/h)',
        'external MB (slope/h)',
        'threads',
        'fds (slope/h)',
        'exit',
      ],
      resources,
    ),
  ].join('\n');
}

export function markdown(f: ChaosFigures, table: string): string {
  const lines = [
    `# ${f.mode === 'soak' ? 'Soak' : 'Chaos'} run: ${f.minutes} min, seed ${f.seed}`,
    '',
    'Written by `npm run chaos` (bench/chaos). Slopes are least squares over the samples after warm-up, per hour.',
    '',
    '```',
    table,
    '```',
  ];
  if (f.violations.length + f.settleViolations.length > 0) {
    lines.push('', '## Violations', '');
    for (const v of f.violations) lines.push(`- ${new Date(v.at).toISOString()} ${v.kind}: ${v.detail}`);
    for (const v of f.settleViolations) lines.push(`- after settle: ${v}`);
  }
  if (f.failovers.length > 0) {
    lines.push('', '## Failovers', '');
    for (const o of f.failovers)
      lines.push(`- ${o.kind} of ${o.from}: ${o.to || 'nobody'} reconciling after ${fmt(o.toFirstReconcileMs, ' ms')}`);
  }
  return `${lines.join('\n')}\n`;
}
