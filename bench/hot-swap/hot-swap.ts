// Hot swap under load: a wasm-ccm process (real child process, manifest RBAC) runs the devcloud plugin from a plugin
// ConfigMap (API source) while a load loop keeps reconciles going — an annotation change on one of a few LoadBalancer
// Services every 100 ms (each a full ensure), a node leaving and rejoining the load balancers' node set every
// second (a node sync: updateLoadBalancer on every Service), and the node lifecycle controller checking instances
// every second. Meanwhile the ConfigMap is switched between devcloud v1 and v2, --swaps times.
// Per swap: ConfigMap update request -> the CCM's `plugin swapped` log line (its own timestamp; /debug/plugins must
// then show the version). failed_reconciles: sync errors the controllers logged plus SyncLoadBalancerFailed /
// UpdateLoadBalancerFailed events, during the whole run (goal 0).
// With --gzip-3mib both modules are padded to 3 MiB (a custom section) and shipped gzip -9'd under a `.gz` key
// (~0.9 MiB each: a module larger than a ConfigMap), results in hot-swap-gzip-3mib.json.
// Usage: npm run bench:hot-swap -- [--swaps=20] [--services=4] [--gzip-3mib] [--quick (5 swaps, results not written)]
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { ControlPlane } from '../../lab/controlplane/index.ts';
import { eventually } from '../../lab/process/index.ts';
import {
  type LogRecord,
  debugPlugins,
  devcloudProvider,
  httpsGet,
  lbService,
  PLUGIN_NAMESPACE,
  prepareKube,
  putPluginConfigMap,
  seedNode,
  startServingCCM,
  waitForIngress,
  writePluginConfig,
} from '../../lab/ccm/index.ts';
import { hotswapModules, paddedModule } from '../../lab/plugins/index.ts';
import { percentile, formatTable } from '../../lab/measure/index.ts';

const GZIP = process.argv.includes('--gzip-3mib');
const RESULTS = new URL(`../results/hot-swap${GZIP ? '-gzip-3mib' : ''}.json`, import.meta.url);
const KEY = GZIP ? 'devcloud.wasm.gz' : 'devcloud.wasm';
const EXCLUDE = 'node.kubernetes.io/exclude-from-external-load-balancers';

function flag(name: string, fallback: number): number {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit === undefined ? fallback : Number(hit.slice(name.length + 3));
}
const QUICK = process.argv.includes('--quick');
const SWAPS = flag('swaps', QUICK ? 5 : 20);
const SERVICES = flag('services', 4);
const NODES = 3;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`hot-swap: ${SWAPS} swaps under load (${SERVICES} LoadBalancer Services, ${NODES} nodes)`);
  const built = await hotswapModules();
  const ship = (m: Uint8Array): Uint8Array =>
    GZIP ? new Uint8Array(gzipSync(paddedModule(m, 3 * 1024 * 1024), { level: 9 })) : m;
  // What goes into the ConfigMap, and the digest the CCM reports (of the module, decompressed).
  const modules = { v1: ship(built.v1), v2: ship(built.v2) };
  const digests = new Map(
    [built.v1, built.v2].map((m, i) => [
      i === 0 ? '1.0.0' : '2.0.0',
      sha256(GZIP ? paddedModule(m, 3 * 1024 * 1024) : m),
    ]),
  );
  const cp = await ControlPlane.start();
  let cloud: Devcloud | undefined;
  try {
    const kube = await prepareKube(cp.info);
    cloud = await startDevcloud();
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-bench-hot-swap-'));
    const namespace = 'bench-hot-swap';
    await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
    const nodes = Array.from({ length: NODES }, (_, i) => `bench-node-${i}`);
    for (const n of nodes) await seedNode(kube.core, cloud, n);
    const configMap = 'devcloud-plugin';
    await putPluginConfigMap(kube.core, configMap, KEY, modules.v1);
    const config = writePluginConfig(dir, 'bench', {
      providers: [
        devcloudProvider(dir, cloud, 'devcloud', {
          configMap: { namespace: PLUGIN_NAMESPACE, name: configMap, key: KEY },
        }),
      ],
    });
    const { ccm, base } = await startServingCCM(cp.info, kube.token, [
      `--plugin-config=${config}`,
      '--controllers=service,cloud-node-lifecycle',
      '--node-monitor-period=1s',
      '--kube-api-qps=100',
      '--kube-api-burst=200',
    ]);
    const services = Array.from({ length: SERVICES }, (_, i) => `lb-${i}`);
    for (const s of services) await kube.core.createNamespacedService({ namespace, body: lbService(s) });
    for (const s of services) await waitForIngress(kube.core, namespace, s, 60_000);
    const metricsBefore = (await httpsGet(`${base}/metrics`)).body;
    const logsBefore = ccm.logs().length;

    // The load: runs until stopped, counting what it asked for.
    let loading = true;
    const load = { annotationChanges: 0, nodeToggles: 0, loadErrors: 0 };
    const annotate = (async () => {
      for (let tick = 0; loading; tick++) {
        const name = services[tick % services.length] as string;
        try {
          await kube.core.patchNamespacedService({
            namespace,
            name,
            body: [{ op: 'add', path: '/metadata/annotations', value: { 'bench/tick': String(tick) } }],
          });
          load.annotationChanges++;
        } catch {
          load.loadErrors++;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const toggle = (async () => {
      for (let tick = 0; loading; tick++) {
        try {
          const value = tick % 2 === 0 ? { [EXCLUDE]: 'true' } : null;
          await kube.core.patchNode({
            name: nodes[0] as string,
            body: [
              {
                op: value ? 'add' : 'remove',
                path: '/metadata/labels/node.kubernetes.io~1exclude-from-external-load-balancers',
                ...(value ? { value: 'true' } : {}),
              },
            ],
          });
          load.nodeToggles++;
        } catch {
          load.loadErrors++;
        }
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })();
    await new Promise((r) => setTimeout(r, 2_000));

    const swaps: { to: string; ms: number; ccm_ms: number }[] = [];
    for (let i = 0; i < SWAPS; i++) {
      const to = i % 2 === 0 ? modules.v2 : modules.v1;
      const version = i % 2 === 0 ? '2.0.0' : '1.0.0';
      const seen = ccm.logs().length;
      const t0 = Date.now();
      await putPluginConfigMap(kube.core, configMap, KEY, to);
      const record = await eventually(
        `swap ${i + 1} to ${version}`,
        async () =>
          ccm
            .logs()
            .slice(seen)
            .find(
              (r: LogRecord) => r.msg === 'plugin swapped' && r.to === version && r.sha256 === digests.get(version),
            ),
        30_000,
      );
      const ms = Number(record.ts) - t0;
      const status = (await debugPlugins(base))[0];
      if (status?.version !== version) throw new Error(`/debug/plugins shows ${status?.version}, expected ${version}`);
      swaps.push({ to: version, ms, ccm_ms: Number(record.durationMs) });
      console.log(`  swap ${String(i + 1).padStart(2)}: -> ${version} in ${ms} ms`);
      // Let the old plugin drain and the load run on the new one before the next swap.
      await new Promise((r) => setTimeout(r, 750));
    }

    loading = false;
    await Promise.all([annotate, toggle]);
    await new Promise((r) => setTimeout(r, 1_500));
    const metricsAfter = (await httpsGet(`${base}/metrics`)).body;
    const runLogs = ccm.logs().slice(logsBefore);
    const syncErrors = runLogs.filter(
      (r) =>
        r.msg === 'error syncing; requeueing with backoff' ||
        r.msg === 'failed to update load balancer hosts; queueing a full sync',
    );
    const failedEvents = (await kube.core.listNamespacedEvent({ namespace })).items.filter(
      (e) => e.reason === 'SyncLoadBalancerFailed' || e.reason === 'UpdateLoadBalancerFailed',
    );
    const failedEventCount = failedEvents.reduce((n, e) => n + (e.count ?? 1), 0);
    const delta = (name: string) => metricSum(metricsAfter, name) - metricSum(metricsBefore, name);

    const sorted = swaps.map((s) => s.ms).sort((a, b) => a - b);
    const internal = swaps.map((s) => s.ccm_ms).sort((a, b) => a - b);
    const exitCode = await ccm.stop();
    const report = {
      benchmark: GZIP ? 'hot-swap-gzip-3mib' : 'hot-swap',
      date: new Date().toISOString(),
      swaps: swaps.length,
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      max_ms: sorted.at(-1) ?? null,
      ccm_p50_ms: percentile(internal, 50),
      failed_reconciles: syncErrors.length + failedEventCount,
      failed_reconcile_detail: {
        controller_sync_errors: syncErrors.length,
        failed_events: failedEventCount,
        examples: syncErrors.slice(0, 3).map((r) => String(r.err)),
      },
      load: {
        ...load,
        load_balancer_syncs: delta('service_controller_loadbalancer_sync_total'),
        plugin_calls: delta('wasm_ccm_plugin_calls_total'),
        plugin_call_errors: delta('wasm_ccm_plugin_call_errors_total'),
        nodesync_errors: delta('service_controller_nodesync_error_total'),
      },
      measured:
        'ConfigMap replace request -> the CCM\'s "plugin swapped" log line (its timestamp); ccm_p50_ms: from the watch event to the switch',
      setup: `${SERVICES} LoadBalancer Services, ${NODES} nodes; devcloud v1 <-> v2 (${modules.v1.length} bytes${GZIP ? ' gzip of 3 MiB' : ''}) via an API ConfigMap; controllers service,cloud-node-lifecycle; pool 3 + 1 spare`,
      durations_ms: swaps.map((s) => s.ms),
      ccm_exit_code: exitCode,
      machine: { cpus: availableParallelism(), node: process.version, load_1m: loadavg()[0] },
      wall_s: Math.round((Date.now() - started) / 1000),
    };
    if (!QUICK) writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `\n${formatTable(
        ['swaps', 'p50 ms', 'p99 ms', 'max ms', 'CCM p50 ms', 'failed reconciles', 'LB syncs', 'plugin calls'],
        [
          [
            String(report.swaps),
            String(report.p50_ms),
            String(report.p99_ms),
            String(report.max_ms),
            String(report.ccm_p50_ms),
            String(report.failed_reconciles),
            String(report.load.load_balancer_syncs),
            String(report.load.plugin_calls),
          ],
        ],
      )}\n\n${QUICK ? 'quick run: results not written' : `wrote ${RESULTS.pathname}`}`,
    );
    if (exitCode !== 0) throw new Error(`the CCM exited with ${exitCode}`);
  } finally {
    await cloud?.stop();
    await cp.stop();
  }
}

await main();
