// What a chaos or soak run commits: the figures its tables quote, without the per-sample series and the failover
// list, which go to the raw run beside it (bench/results/raw/, not committed).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChaosFigures,
  chaosSummary,
  type Failover,
  FAULT_KINDS,
  type FaultKind,
  replicaFigures,
  type ResourceSample,
} from '../../../lab/chaos/index.ts';
import { rawResultsPath } from '../../../lab/measure/index.ts';

function samples(count: number, rssMb: (i: number) => number): ResourceSample[] {
  return Array.from({ length: count }, (_, i) => ({
    t: i * 10_000,
    rssMb: rssMb(i),
    heapMb: 20,
    externalMb: 10,
    fds: 40,
    threads: 17,
  }));
}

function failover(kind: FaultKind, toFirstReconcileMs: number): Failover {
  return { kind, at: 1_000, from: 'ccm-1', to: 'ccm-2', toFirstReconcileMs };
}

function figures(): ChaosFigures {
  const long = samples(40, (i) => 120 + i);
  const short = samples(2, () => 100);
  return {
    mode: 'chaos',
    runtime: 'plain node',
    seed: 3,
    minutes: 5,
    driverSteps: { addNode: 4 },
    driverStepsFailed: 1,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 1])) as Record<FaultKind, number>,
    faultsSkipped: [],
    failovers: [failover('kill-leader', 5_000), failover('pause-leader', 6_000), failover('kill-leader', 4_000)],
    leaseTransitions: 3,
    toFirstReconcileMs: { p50: 5_000, max: 6_000, goalMs: 6_000 },
    violations: [],
    settleViolations: [],
    settleMs: 900,
    nonLeaderMutations: 0,
    mutationsJudged: 70,
    loadBalancerDeletesJudged: 9,
    reconcileErrors: { 'error syncing; requeueing with backoff': 2 },
    pluginInstanceRestarts: 4,
    replicasStarted: 2,
    replicas: [replicaFigures('ccm-1', long, 30_000, undefined), replicaFigures('ccm-2', short, 30_000, null)],
    samples: { 'ccm-1': long, 'ccm-2': short },
  };
}

describe('chaosSummary', () => {
  it('keeps every figure and drops the samples and the failover list', () => {
    const full = figures();
    const summary = chaosSummary(full);

    expect(summary).not.toHaveProperty('samples');
    expect(summary.failovers).toEqual({ count: 3, byKind: { 'kill-leader': 2, 'pause-leader': 1 } });
    expect(summary.toFirstReconcileMs).toEqual(full.toFirstReconcileMs);
    expect(summary.faults).toEqual(full.faults);
    expect(summary.mutationsJudged).toBe(70);
    expect(summary.reconcileErrors).toEqual(full.reconcileErrors);
    // Only replicas sampled after warm-up, as the summary table shows them, with their slopes.
    expect(summary.replicas.map((r) => r.name)).toEqual(['ccm-1']);
    expect(summary.replicas[0]?.rssMb.slopePerHour).toBe(360);
    // No per-sample series anywhere: the raw run has 42 samples, the summary none.
    expect(JSON.stringify(full)).toContain('"t":390000');
    expect(JSON.stringify(summary)).not.toContain('"t":');
  });
});

describe('rawResultsPath', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('puts the raw run in raw/ beside the results file, creating the folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-results-'));
    const raw = rawResultsPath(join(dir, 'chaos.json'));
    expect(raw).toBe(join(dir, 'raw', 'chaos.json'));
    expect(existsSync(join(dir, 'raw'))).toBe(true);
  });
});
