// Resident memory of the wasm-ccm process, for comparing settings quickly: one control plane and devcloud for the
// whole run; each variant is a fresh CCM process (same flags as bench:compare) measured
//   idle:   with one initialized Node, `--idle-wait` seconds after the controllers started;
//   steady: after `--nodes` Nodes (initialized, excluded from LBs) and `--services` ClusterIP Services exist and the
//           CCM has settled `--settle` seconds. The cluster is filled once, while the first variant runs (its caches
//           fill through the watch, as in bench:compare); later variants start on the full cluster (initial list).
// CPU is user + system seconds of the CCM from its start to the steady measurement.
// Usage: node bench/upstream/rss.ts [--nodes=5000] [--services=10000] [--idle-wait=10] [--settle=20]
//   [--variant='name|node args|ccm args' ...]  (space-separated args; default one variant "current")
//   [--compiled]  (run dist/host/src/main.js, as the image does; `npm run build` first)
//   [--image-env]  (with the image's environment, lab/ccm/image.ts IMAGE_ENV: jemalloc preloaded)
//   [--heap-snapshot=DIR]  (the first variant writes a heap snapshot of the main thread at steady state, via SIGUSR2)
import { parseArgs } from 'node:util';
import { HttpMethod } from '../../host/src/kube/client/http-method.ts';
import { startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import {
  CCM_MAIN,
  CCM_MAIN_COMPILED,
  CCMProcess,
  IMAGE_ENV,
  imageEnvProblem,
  devcloudPluginArgs,
  kubeletNode,
} from '../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { heapSnapshotNodeArgs, takeHeapSnapshot } from '../lib/heap-snapshot.ts';
import { cpuSeconds, memoryStats } from '../../lab/measure/index.ts';
import { createNodes, createServices, EXCLUDE_FROM_LBS, names, sleep } from '../lib/cluster-load.ts';
import { benchFlags } from '../lib/start-ccm.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    services: { type: 'string', default: '10000' },
    'idle-wait': { type: 'string', default: '10' },
    settle: { type: 'string', default: '20' },
    variant: { type: 'string', multiple: true },
    'concurrent-service-syncs': { type: 'string', default: '10' },
    'heap-snapshot': { type: 'string' },
    compiled: { type: 'boolean', default: false },
    'image-env': { type: 'boolean', default: false },
  },
});
const envProblem = values['image-env'] ? imageEnvProblem() : undefined;
if (envProblem) throw new Error(envProblem);

const NODES = Number(values.nodes);
const SERVICES = Number(values.services);
const IDLE_WAIT_MS = Number(values['idle-wait']) * 1000;
const SETTLE_MS = Number(values.settle) * 1000;
const FLAGS = benchFlags({ serviceSyncs: Number(values['concurrent-service-syncs']) });

interface Variant {
  name: string;
  nodeArgs: string[];
  args: string[];
}

const variants: Variant[] = (values.variant ?? ['current||']).map((spec) => {
  const [name = 'current', nodeArgs = '', args = ''] = spec.split('|');
  const words = (s: string): string[] => s.split(' ').filter((w) => w !== '');
  return { name, nodeArgs: words(nodeArgs), args: words(args) };
});

const cp = await ControlPlane.start({ apiserverFlags: ['--max-requests-inflight=800'] });
const cloud = await startDevcloud({ token: 'rss-token' });
const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
const rows: string[] = [];
let filled = false;
try {
  cloud.addInstance({ name: 'warmup' });
  await admin.request({ method: HttpMethod.POST, path: '/api/v1/nodes', body: kubeletNode('warmup', { ready: true }) });
  for (const variant of variants) {
    const nodeArgs = [...variant.nodeArgs];
    const snapshot = variant === variants[0] ? values['heap-snapshot'] : undefined;
    if (snapshot) nodeArgs.push(...heapSnapshotNodeArgs(snapshot));
    const ccm = new CCMProcess({
      info: cp.info,
      token: cp.info.adminToken,
      args: [...devcloudPluginArgs(cp.info.dir, cloud, 'rss'), ...FLAGS, ...variant.args],
      nodeArgs,
      main: values.compiled ? CCM_MAIN_COMPILED : CCM_MAIN,
      ...(values['image-env'] ? { env: IMAGE_ENV } : {}),
    });
    try {
      const pid = ccm.process.pid;
      if (pid === undefined) throw new Error('no pid');
      await ccm.ready(120_000);
      await sleep(IDLE_WAIT_MS);
      const idle = filled ? undefined : memoryStats(pid);
      const idleThreads = memoryStats(pid).threads;
      if (!filled) {
        const t0 = Date.now();
        const nodes = names('rss-node', NODES);
        nodes.forEach((name) => cloud.addInstance({ name }));
        await createNodes(admin, nodes, { [EXCLUDE_FROM_LBS]: 'true' }, { initialized: true });
        await createServices(admin, names('rss-svc', SERVICES), 'ClusterIP');
        filled = true;
        console.log(`  filled ${NODES} nodes / ${SERVICES} services in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      }
      await sleep(SETTLE_MS);
      const steady = memoryStats(pid);
      const cpu = cpuSeconds(pid);
      if (snapshot) await takeHeapSnapshot(pid, snapshot);
      const row =
        `${variant.name}: idle ${idle ? `${idle.rssMb} MB` : '(cluster full)'} (${idleThreads} threads), ` +
        `steady ${steady.rssMb} MB (peak ${steady.peakMb} MB), CPU ${cpu.toFixed(1)} s`;
      console.log(row);
      rows.push(row);
    } finally {
      await ccm.stop().catch(() => undefined);
    }
  }
} finally {
  await cloud.stop().catch(() => undefined);
  await cp.stop().catch(() => undefined);
}
console.log(rows.join('\n'));
