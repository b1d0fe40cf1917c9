// What bench:cloud-calls reports per cloud: the three scenarios' request counts of both CCMs (from the first round,
// the one that runs all three), and over every round the interleaved node-init CPU per node and the burst's
// taint-removal latency.
import { type CloudCallsRow, median, percentile, requestRatio, sumValues } from '../../../lab/measure/index.ts';
import type { Impl } from '../../lib/start-ccm.ts';
import type { CloudName } from './clouds.ts';
import type { Counted } from './scenarios.ts';

/** One CCM run: a burst round, and in the first round the status pass and the storm too. */
export interface RunOutcome {
  impl: Impl;
  round: number;
  cpuSeconds: number;
  latenciesMs: number[];
  burst: Record<string, number>;
  /** First round only. */
  status: Counted | undefined;
  storm: Counted | undefined;
  exitCode: number | null;
}

export interface ScenarioSizes {
  nodes: number;
  stormNodes: number;
  stormSeconds: number;
  statusFrequencySeconds: number;
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

function ofImpl(runs: readonly RunOutcome[], impl: Impl): RunOutcome[] {
  return runs.filter((r) => r.impl === impl).sort((a, b) => a.round - b.round);
}

function firstRound(runs: readonly RunOutcome[], impl: Impl): RunOutcome {
  const first = ofImpl(runs, impl)[0];
  if (first?.status === undefined || first.storm === undefined)
    throw new Error(`${impl}: no first round with every scenario`);
  return first;
}

export function scenarioRows(cloud: CloudName, sizes: ScenarioSizes, runs: readonly RunOutcome[]): CloudCallsRow[] {
  const up = firstRound(runs, 'upstream');
  const wasm = firstRound(runs, 'wasm_ccm');
  const row = (scenario: string, pick: (r: RunOutcome) => Record<string, number>): CloudCallsRow => ({
    scenario,
    cloud,
    upstream: sumValues(pick(up)),
    wasmCcm: sumValues(pick(wasm)),
  });
  return [
    row(`burst initialization, ${sizes.nodes} nodes`, (r) => r.burst),
    row(`one status update period, ${sizes.nodes} nodes`, (r) => r.status?.requests ?? {}),
    row(`NotReady storm, ${sizes.stormNodes} nodes, ${sizes.stormSeconds} s`, (r) => r.storm?.requests ?? {}),
  ];
}

function implSummary(runs: readonly RunOutcome[], impl: Impl, nodes: number) {
  const mine = ofImpl(runs, impl);
  const first = firstRound(runs, impl);
  return {
    burst_requests_per_round: mine.map((r) => sumValues(r.burst)),
    requests_by_operation: {
      burst: first.burst,
      status_update_period: first.status?.requests,
      not_ready_storm: first.storm?.requests,
    },
    status_pass_s: r3((first.status?.ms ?? Number.NaN) / 1000),
    cpu_ms_per_node_per_round: mine.map((r) => r3((r.cpuSeconds / nodes) * 1000)),
    cpu_ms_per_node_median: r3((median(mine.map((r) => r.cpuSeconds)) / nodes) * 1000),
    taint_removal_p50_s_per_round: mine.map((r) => r3(percentile(r.latenciesMs, 50) / 1000)),
    taint_removal_p99_s_per_round: mine.map((r) => r3(percentile(r.latenciesMs, 99) / 1000)),
    taint_removal_p50_s: r3(median(mine.map((r) => percentile(r.latenciesMs, 50))) / 1000),
    taint_removal_p99_s: r3(median(mine.map((r) => percentile(r.latenciesMs, 99))) / 1000),
    exit_codes: mine.map((r) => r.exitCode),
  };
}

/** The JSON of one cloud: scenarios with both counts and their ratio, each CCM's detail, the CPU comparison. */
export function cloudSummary(cloud: CloudName, sizes: ScenarioSizes, runs: readonly RunOutcome[]) {
  const upstream = implSummary(runs, 'upstream', sizes.nodes);
  const wasmCcm = implSummary(runs, 'wasm_ccm', sizes.nodes);
  const rounds = Math.min(upstream.cpu_ms_per_node_per_round.length, wasmCcm.cpu_ms_per_node_per_round.length);
  const cpuRatios = Array.from(
    { length: rounds },
    (_, i) => (wasmCcm.cpu_ms_per_node_per_round[i] as number) / (upstream.cpu_ms_per_node_per_round[i] as number),
  );
  return {
    cloud,
    ...sizes,
    scenarios: scenarioRows(cloud, sizes, runs).map((r) => ({
      scenario: r.scenario,
      upstream_requests: r.upstream,
      wasm_ccm_requests: r.wasmCcm,
      ratio: requestRatio(r.upstream, r.wasmCcm) === null ? null : r3(requestRatio(r.upstream, r.wasmCcm) as number),
    })),
    node_init_cpu: {
      rounds,
      upstream_ms_per_node: upstream.cpu_ms_per_node_median,
      wasm_ccm_ms_per_node: wasmCcm.cpu_ms_per_node_median,
      ratio_per_round: cpuRatios.map(r3),
      ratio_median: r3(median(cpuRatios)),
    },
    upstream,
    wasm_ccm: wasmCcm,
  };
}

export type CloudSummary = ReturnType<typeof cloudSummary>;
