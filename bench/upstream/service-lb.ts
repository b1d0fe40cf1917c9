// Time to give N LoadBalancer Services their ingress through the whole system: a fresh control plane, devcloud with a
// fixed latency on every cloud call, and wasm-ccm (service controller only, devcloud plugin, operator RBAC) started
// once all Services exist, so the clock measures the CCM's work alone. One run per --concurrent-service-syncs value;
// each reports seconds from the CCM's start until every Service has an ingress, and the CCM's VmRSS at that moment.
// Writes bench/results/service-lb.json and prints a table.
//
//   npm run bench:service-lb -- [--services 1000] [--latency-ms 50] [--concurrency 1,10] [--nodes 10]
//                               [--kube-api-qps 20,200] [--run C:N[:Q] ...] [--out PATH]
//
// Runs every concurrency at every --kube-api-qps (default 20, the CCM's and upstream's default; burst 1.5x), since
// the apiserver writes per Service (finalizer, status, two events) share that client rate limit. --run C:N[:Q]
// (repeatable; replaces both lists) runs concurrency C with N Services, for a row too slow at full size.
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { ControlPlane } from '../../lab/controlplane/index.ts';
import { DevcloudCCM, checkInvariants } from '../../lab/ccm/index.ts';
import { formatTable } from '../../lab/measure/index.ts';

interface RunSpec {
  concurrency: number;
  services: number;
  kube_api_qps: number;
}

interface RunResult extends RunSpec {
  /** CCM process start -> every Service has an ingress. */
  total_s: number;
  /** CCM process start -> controllers running (plugin loaded, caches synced). */
  startup_s: number;
  services_per_s: number;
  /** VmRSS of the CCM when every Service has its ingress. */
  rss_mb: number;
  /** VmRSS of the CCM when its controllers started. */
  rss_ready_mb: number;
  invariant_violations: number;
}

const { values } = parseArgs({
  options: {
    services: { type: 'string', default: '1000' },
    'latency-ms': { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '1,10' },
    nodes: { type: 'string', default: '10' },
    run: { type: 'string', multiple: true },
    'kube-api-qps': { type: 'string', default: '20' },
    out: { type: 'string', default: new URL('../results/service-lb.json', import.meta.url).pathname },
  },
});

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag}: want a positive integer, got "${text}"`);
  return n;
}

const servicesDefault = positiveInt('services', values.services);
const latencyMs = Number(values['latency-ms']);
const nodeCount = positiveInt('nodes', values.nodes);
const qpsList = values['kube-api-qps'].split(',').map((q) => positiveInt('kube-api-qps', q));
const runs: RunSpec[] = values.run
  ? values.run.map((r) => {
      const [c, n, q] = r.split(':');
      return {
        concurrency: positiveInt('run', c ?? ''),
        services: n ? positiveInt('run', n) : servicesDefault,
        kube_api_qps: q ? positiveInt('run', q) : (qpsList[0] ?? 20),
      };
    })
  : qpsList.flatMap((q) =>
      values.concurrency.split(',').map((c) => ({
        concurrency: positiveInt('concurrency', c),
        services: servicesDefault,
        kube_api_qps: q,
      })),
    );

function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function limited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function measure(spec: RunSpec): Promise<RunResult> {
  const cp = await ControlPlane.start();
  let env: DevcloudCCM | undefined;
  try {
    const q = spec.kube_api_qps;
    const qpsArgs = [`--kube-api-qps=${q}`, `--kube-api-burst=${Math.ceil(q * 1.5)}`];
    env = await DevcloudCCM.start({
      info: cp.info,
      tag: `bench-c${spec.concurrency}-q${spec.kube_api_qps}`,
      args: ['--controllers=service', `--concurrent-service-syncs=${spec.concurrency}`, ...qpsArgs],
      devcloud: { knobs: { latencyMs } },
      startCCM: false,
    });
    // Nodes first, then the Services, before the CCM starts: the measured run starts from a settled cluster.
    for (let i = 0; i < nodeCount; i++) await env.seedNode(`bench-node-${i}`);
    const namespace = 'bench';
    await env.core.createNamespace({ body: { metadata: { name: namespace } } });
    const names = Array.from({ length: spec.services }, (_, i) => `svc-${String(i).padStart(5, '0')}`);
    await limited(names, 32, async (name) => {
      await env?.core.createNamespacedService({
        namespace,
        body: {
          metadata: { name },
          spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
        },
      });
    });
    log(
      `c=${spec.concurrency} qps=${spec.kube_api_qps}: ${spec.services} Services and ${nodeCount} nodes created; starting the CCM`,
    );

    const started = performance.now();
    const ccm = await env.startCCM({ waitReady: false });
    let startup = Number.NaN;
    let rssReady = Number.NaN;
    let lastReport = started;
    for (;;) {
      if (!ccm.process.running) throw new Error(`the CCM exited:\n${ccm.process.tail()}`);
      if (Number.isNaN(startup)) {
        const ready = ccm.logs().find((r) => r.msg === 'caches synced; starting controllers');
        if (ready) {
          startup = (Date.parse(String(ready.time)) - (performance.timeOrigin + started)) / 1000;
          // Plugin instances loaded, caches synced, little work done yet: the fixed cost, next to rss_mb at the end.
          rssReady = (await env.ccmRssMiB()) ?? Number.NaN;
        }
      }
      const items = (await env.core.listNamespacedService({ namespace })).items;
      const done = items.filter((s) => (s.status?.loadBalancer?.ingress?.length ?? 0) > 0).length;
      if (done === spec.services) break;
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        log(
          `c=${spec.concurrency} qps=${spec.kube_api_qps}: ${done}/${spec.services} after ${((lastReport - started) / 1000).toFixed(0)} s`,
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const totalS = (performance.now() - started) / 1000;
    const rss = (await env.ccmRssMiB()) ?? Number.NaN;
    const violations = await checkInvariants({
      kube: env.admin,
      inventory: () => (env as DevcloudCCM).cloud.inventory(),
      namespaces: [namespace],
    });
    if (violations.length > 0)
      log(`c=${spec.concurrency} qps=${spec.kube_api_qps}: ${violations.length} violations, e.g. ${violations[0]}`);
    return {
      ...spec,
      total_s: round(totalS, 1),
      startup_s: round(startup, 2),
      services_per_s: round(spec.services / totalS, 2),
      rss_mb: round(rss, 1),
      rss_ready_mb: round(rssReady, 1),
      invariant_violations: violations.length,
    };
  } finally {
    await env?.stop().catch(() => undefined);
    await cp.stop();
  }
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

const results: RunResult[] = [];
for (const spec of runs) {
  results.push(await measure(spec));
  log(`c=${spec.concurrency} qps=${spec.kube_api_qps}: ${JSON.stringify(results.at(-1))}`);
}

const uniform = results.every((r) => r.services === servicesDefault);
const output = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: availableParallelism(),
  services: servicesDefault,
  latency_ms: latencyMs,
  nodes: nodeCount,
  note: uniform
    ? undefined
    : 'services differs per run (see runs[].services): a full-size run at that concurrency would take too long',
  runs: results,
};
writeFileSync(values.out, `${JSON.stringify(output, null, 2)}\n`);
console.log(
  formatTable(
    [
      'concurrency',
      'services',
      'kube qps',
      'startup s',
      'total s',
      'services/s',
      'rss MB',
      'rss@ready MB',
      'violations',
    ],
    results.map((r) => [
      String(r.concurrency),
      String(r.services),
      String(r.kube_api_qps),
      r.startup_s.toFixed(2),
      r.total_s.toFixed(1),
      r.services_per_s.toFixed(2),
      r.rss_mb.toFixed(1),
      r.rss_ready_mb.toFixed(1),
      String(r.invariant_violations),
    ]),
  ),
);
console.log(`\n${latencyMs} ms per devcloud call, ${nodeCount} nodes; written to ${values.out}`);
