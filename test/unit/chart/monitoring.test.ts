// The chart's opt-in monitoring: the PrometheusRule (templates/prometheus-rule.yaml) and the Grafana dashboard
// (files/dashboard.json, in a ConfigMap) render only when asked for, and every metric their queries name is one the CCM
// registers (host/src/app/metric-catalog.ts, the list docs/metrics.md is written from), so an alert can never watch a
// series that does not exist.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricCatalog } from '../../../host/src/app/metric-catalog.ts';
import { anchor, TROUBLESHOOTING_DOC } from '../../../scripts/gen-troubleshooting-doc.ts';
import {
  CHART_DIR,
  chartTestSetup,
  DEVCLOUD_MODULE,
  helmTemplate,
  only,
  type RenderedObject,
  ROOT,
} from '../../support/chart-model.ts';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface PrometheusRule {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: { groups: { name: string; rules: Rule[] }[] };
}

const DASHBOARD_FILE = join(CHART_DIR, 'files', 'dashboard.json');
const PROMQL_BUILD_TIMEOUT_MS = 20 * 60_000;
let promqlCheck: string | undefined;

/** Prometheus' own parser (scripts/build-promql.sh, cached; minutes on a cold machine) over `exprs`: "" or its error. */
function promqlProblems(exprs: readonly string[]): string[] {
  promqlCheck ??= execFileSync('bash', [join(ROOT, 'scripts', 'build-promql.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: PROMQL_BUILD_TIMEOUT_MS,
  })
    .trim()
    .split('\n')
    .at(-1);
  const out = execFileSync(promqlCheck as string, { input: JSON.stringify(exprs), encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

/** `expr: problem` for each expression Prometheus' parser refuses. */
const unparsable = (exprs: readonly string[]): string[] =>
  promqlProblems(exprs)
    .map((problem, i) => (problem === '' ? '' : `${exprs[i]}: ${problem}`))
    .filter((line) => line !== '');
// PromQL's (and Grafana's label_values) functions and keywords with an underscore: any other such token is a metric.
const FUNCTIONS = new Set(['histogram_quantile', 'label_values', 'label_replace', 'label_join', 'absent_over_time']);
// Series Prometheus makes itself for every target.
const SYNTHETIC = new Set(['up']);

/** The metric names a PromQL expression selects: tokens with an underscore that are no function, and `name{`. */
function metricNames(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = new Set<string>();
  for (const [token] of code.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    if (token.includes('_') && !FUNCTIONS.has(token)) names.add(token);
  }
  for (const [, name] of code.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g)) names.add(name as string);
  return [...names];
}

/** Every series name the CCM exposes (a histogram's _bucket, _sum and _count), and Prometheus' own. */
async function exposedSeries(): Promise<Set<string>> {
  const names = new Set(SYNTHETIC);
  for (const family of await metricCatalog()) {
    if (family.type === 'histogram' || family.type === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(family.name + suffix);
    } else names.add(family.name);
  }
  return names;
}

function dashboardQueries(dashboard: unknown): string[] {
  const queries: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'expr' || key === 'definition') && typeof value === 'string') queries.push(value);
        else walk(value);
      }
    }
  };
  walk(dashboard);
  return queries;
}

chartTestSetup('wasm-ccm-chart-monitoring-');

describe('charts/wasm-ccm monitoring', () => {
  let enabled: RenderedObject[] = [];
  let rule: PrometheusRule;

  beforeAll(() => {
    promqlProblems([]);
  }, PROMQL_BUILD_TIMEOUT_MS);

  beforeAll(async () => {
    const result = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: {
        'prometheusRule.enabled': true,
        'prometheusRule.labels': { release: 'prometheus' },
        'prometheusRule.alertLabels': { team: 'infra' },
        'grafanaDashboard.enabled': true,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    enabled = result.objects;
    rule = only(enabled, 'PrometheusRule') as unknown as PrometheusRule;
  }, 60_000);

  it('renders neither the rule nor the dashboard by default', async () => {
    const result = await helmTemplate({ setFiles: DEVCLOUD_MODULE });
    expect(result.code, result.stderr).toBe(0);
    expect(result.objects.length).toBeGreaterThan(5);
    expect(result.objects.filter(({ object }) => object.kind === 'PrometheusRule')).toEqual([]);
    expect(result.objects.filter(({ source }) => source.endsWith('grafana-dashboard.yaml'))).toEqual([]);
  });

  it("renders the alerts the issue asks for, each with a severity, the operator's labels and a runbook", () => {
    expect(rule.metadata.labels.release).toBe('prometheus');
    const rules = rule.spec.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'WasmCCMNoLeader',
        'WasmCCMPluginCallErrors',
        'WasmCCMPluginInstancesLost',
        'WasmCCMCloudAPIErrors',
        'WasmCCMCloudAPIThrottled',
        'WasmCCMWorkQueueBacklog',
        'WasmCCMWorkQueueLatency',
        'WasmCCMNodeInitializationFailing',
      ]),
    );
    const page = readFileSync(TROUBLESHOOTING_DOC, 'utf8');
    const sections = new Set([...page.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchor(m[1] as string)));
    for (const r of rules) {
      expect(r.labels.severity, r.alert).toMatch(/^(critical|warning|info)$/);
      expect(r.labels.team, r.alert).toBe('infra');
      expect(r.annotations.summary, r.alert).toBeTruthy();
      const [path, section] = (r.annotations.runbook ?? '').split('#');
      expect(path, r.alert).toBe('docs/troubleshooting.md');
      expect(sections.has(section ?? ''), `${r.alert}: #${section}`).toBe(true);
      // Every selector carries the release's series selector (and the Lease's name where it is about the Lease).
      expect(r.expr, r.alert).toContain('namespace="kube-system",job="wasm-ccm"');
    }
  });

  it('names in its alerts only metrics the CCM registers', async () => {
    const exposed = await exposedSeries();
    const named = rule.spec.groups.flatMap((g) => g.rules).flatMap((r) => metricNames(r.expr));
    // The extraction itself works: it finds a histogram's bucket series and a plain gauge.
    expect(named).toEqual(
      expect.arrayContaining(['wasm_ccm_cloud_api_request_duration_seconds_bucket', 'leader_election_master_status']),
    );
    expect(named.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("writes every alert in PromQL Prometheus' own parser accepts", () => {
    const exprs = rule.spec.groups.flatMap((g) => g.rules).map((r) => r.expr);
    expect(exprs.length).toBeGreaterThan(15);
    expect(unparsable(exprs)).toEqual([]);
    // The parser itself refuses what is wrong.
    expect(unparsable(['sum by (pod (up)'])).toHaveLength(1);
  });

  it('uses the series selector given instead of the default', async () => {
    const result = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: { 'prometheusRule.enabled': true, 'prometheusRule.seriesSelector': 'job="ccm",cluster="prod"' },
    });
    expect(result.code, result.stderr).toBe(0);
    const custom = only(result.objects, 'PrometheusRule') as unknown as PrometheusRule;
    for (const r of custom.spec.groups.flatMap((g) => g.rules)) {
      expect(r.expr, r.alert).toContain('job="ccm",cluster="prod"');
      expect(r.expr, r.alert).not.toContain('namespace="kube-system"');
    }
  });

  it('refuses a series selector that is not PromQL label matchers', async () => {
    const result = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: { 'prometheusRule.enabled': true, 'prometheusRule.seriesSelector': 'job=ccm' },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/prometheusRule\/seriesSelector/);
  });

  it('ships the dashboard file as it is, in a ConfigMap labelled for the Grafana sidecar', () => {
    const configMap = enabled.find(({ source }) => source.endsWith('grafana-dashboard.yaml'))?.object as V1ConfigMap;
    expect(configMap.metadata?.labels?.grafana_dashboard).toBe('1');
    const shipped = configMap.data?.['wasm-ccm.json'] ?? '';
    expect(JSON.parse(shipped)).toEqual(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')));
  });

  it('names in its dashboard only metrics the CCM registers', async () => {
    const exposed = await exposedSeries();
    const queries = dashboardQueries(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')));
    expect(queries.length).toBeGreaterThan(25);
    const named = queries.flatMap(metricNames);
    expect(named).toEqual(expect.arrayContaining(['wasm_ccm_plugin_calls_total', 'workqueue_depth']));
    expect(named.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("writes every dashboard query in PromQL Prometheus' own parser accepts", () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as unknown;
    // Grafana's label_values() of the variables is Grafana's, not PromQL: only the panels' expressions are parsed.
    const exprs = dashboardQueries(dashboard).filter((q) => !q.startsWith('label_values('));
    expect(exprs.length).toBeGreaterThan(25);
    expect(unparsable(exprs)).toEqual([]);
  });
});
