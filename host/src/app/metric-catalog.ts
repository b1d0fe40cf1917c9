// Every metric family the CCM exposes, registered at once on fresh registries: what the metrics reference
// (docs/metrics.md, scripts/gen-metrics-doc.ts) is written from, and what the chart's alert rules and dashboard may
// name. A running CCM registers the same families lazily, as the parts that feed them start; the test of this file
// (test/unit/metrics/catalog.test.ts) holds that every metric defined in host/src is registered here.
import { type MetricObject, Registry } from 'prom-client';
import { nodeControllerMetrics } from '../controllers/node/metrics.ts';
import { routeSyncCounter } from '../controllers/route/metrics.ts';
import { serviceControllerMetrics } from '../controllers/service/metrics.ts';
import { restMetrics } from '../kube/client/rest-metrics.ts';
import { realClock } from '../kube/clock.ts';
import { electionMetrics } from '../kube/leaderelection/election-metrics.ts';
import { queueMetrics } from '../kube/workqueue/metrics.ts';
import { buildInfo, registerBuildInfo } from '../metrics/build-info.ts';
import { nodeRuntimeMetrics } from '../metrics/event-loop-delay.ts';
import type { StabilityLevel } from '../metrics/stability.ts';
import { cloudApiMetrics, createPluginMetrics, createSwapMetrics } from '../plugin/index.ts';
import { SliMetrics } from '../server/slis.ts';
import { runningManagedControllers } from './metrics.ts';

/** Where a family comes from: upstream's components (same name, labels, buckets), wasm-ccm, or Node.js' runtime. */
export type MetricOrigin = 'upstream' | 'wasm-ccm' | 'nodejs';

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  /** The help text without its stability prefix. */
  help: string;
  /** component-base's level; undefined for the Node.js runtime's families, which carry none. */
  stability: StabilityLevel | undefined;
  labels: readonly string[];
  /** A histogram's upper bounds (without +Inf). */
  buckets: readonly number[] | undefined;
  endpoint: '/metrics' | '/metrics/slis';
  origin: MetricOrigin;
}

/** The registry of /metrics with every family the CCM registers on it, Node.js' own included. */
export function registryOfEveryMetric(): Registry {
  const registry = new Registry();
  nodeRuntimeMetrics(registry).stop();
  registerBuildInfo(registry, buildInfo('0.0.0'));
  restMetrics(registry);
  electionMetrics(registry);
  queueMetrics('catalog', registry, realClock).close();
  runningManagedControllers(registry);
  nodeControllerMetrics(registry);
  serviceControllerMetrics(registry);
  routeSyncCounter(registry);
  createPluginMetrics(registry, 'catalog', 'catalog');
  createSwapMetrics(registry);
  cloudApiMetrics(registry, () => 'catalog');
  return registry;
}

/** Names of the families of prom-client's default metrics (the Node.js process and runtime). */
function nodejsFamilies(): Set<string> {
  const registry = new Registry();
  nodeRuntimeMetrics(registry).stop();
  return new Set(
    registry
      .getMetricsAsArray()
      .map((m) => m.name)
      .filter((name) => !name.startsWith('wasm_ccm_')),
  );
}

const STABILITY_PREFIX = /^\[(ALPHA|BETA|STABLE)\] /;

/** A registered family as the registry holds it: prom-client's classes and the metrics/vec.ts vectors alike. */
interface Introspected {
  name: string;
  get(): Promise<{ name: string; help: string; type: string }>;
  labelNames?: readonly string[];
  /** HistogramVec's bounds. */
  buckets?: readonly number[];
  /** prom-client Histogram's bounds. */
  upperBounds?: readonly number[];
}

async function describe(
  metric: Introspected,
  endpoint: MetricFamily['endpoint'],
  nodejs: ReadonlySet<string>,
): Promise<MetricFamily> {
  const { name, help, type } = await metric.get();
  const { labelNames = [], buckets, upperBounds } = metric;
  const level = STABILITY_PREFIX.exec(help)?.[1] as StabilityLevel | undefined;
  return {
    name,
    type: type as MetricFamily['type'],
    help: help.replace(STABILITY_PREFIX, ''),
    stability: level,
    labels: [...labelNames],
    buckets: type === 'histogram' ? [...(buckets ?? upperBounds ?? [])] : undefined,
    endpoint,
    origin:
      endpoint === '/metrics' && nodejs.has(name) ? 'nodejs' : name.startsWith('wasm_ccm_') ? 'wasm-ccm' : 'upstream',
  };
}

/** Every family of /metrics and /metrics/slis, each endpoint's sorted by name. */
export async function metricCatalog(): Promise<MetricFamily[]> {
  const nodejs = nodejsFamilies();
  const families = (registry: Registry): Introspected[] =>
    registry
      .getMetricsAsArray()
      .map((m: MetricObject) => m as unknown as Introspected)
      .sort((a, b) => a.name.localeCompare(b.name));
  const main = families(registryOfEveryMetric());
  const slis = families(new SliMetrics().registry);
  return [
    ...(await Promise.all(main.map((m) => describe(m, '/metrics', nodejs)))),
    ...(await Promise.all(slis.map((m) => describe(m, '/metrics/slis', nodejs)))),
  ];
}
