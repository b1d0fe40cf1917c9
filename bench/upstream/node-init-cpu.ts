// CPU per node initialization of two CCMs, interleaved on one control plane so that both see the same machine.
// bench:compare starts a fresh control plane per implementation and phase, minutes apart; on this shared 2-core VM
// the CPU of the same build then swings by +-15-25% from run to run, more than the differences it is meant to show.
// Here each round runs a fresh CCM of A, then of B (the next round B first), on the same apiserver, etcd and devcloud:
// a warm-up node, then N tainted Ready Nodes at once; the CCM's CPU seconds from the burst's start until every node
// is initialized, then the CCM stops and the nodes are deleted. The per-round ratio B/A cancels most of the drift.
//
// Usage: npm run bench:node-init-cpu -- [--a=upstream] [--b=dist] [--nodes=500] [--rounds=8]
//   --a/--b: upstream | dist (dist/host/src/main.js, built first) | source (host/src/main.ts) | a path to a main.js
//   (another checkout's dist, say, to A/B two commits) [--a-node-args='...'] [--b-node-args='...'] (Node options of a
//   wasm-ccm, default the image's) [--out=bench/results/node-init-cpu.json] (written when A is the upstream CCM and
//   B is dist, the default comparison)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { CCM_MAIN, CCM_MAIN_COMPILED, IMAGE_NODE_ARGS } from '../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { burstRound } from '../lib/burst-round.ts';
import { devcloudInstances } from '../lib/cluster-load.ts';
import { median, formatTable } from '../../lab/measure/index.ts';
import { startCCM, benchFlags } from '../lib/start-ccm.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'upstream' },
    b: { type: 'string', default: 'dist' },
    'a-node-args': { type: 'string', default: IMAGE_NODE_ARGS.join(' ') },
    'b-node-args': { type: 'string', default: IMAGE_NODE_ARGS.join(' ') },
    nodes: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '8' },
    out: { type: 'string', default: new URL('../results/node-init-cpu.json', import.meta.url).pathname },
  },
});

function positive(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got "${raw}"`);
  return n;
}

const NODES = positive('nodes', values.nodes);
const ROUNDS = positive('rounds', values.rounds);
// bench:compare's flags, so the two benchmarks measure the same controllers under the same client limits.
const FLAGS = benchFlags();

interface Variant {
  label: 'A' | 'B';
  spec: string;
  /** undefined: the upstream CCM. */
  main: string | undefined;
  nodeArgs: string[];
}

function variant(label: 'A' | 'B', spec: string, nodeArgs: string): Variant {
  const main =
    spec === 'upstream' ? undefined : spec === 'dist' ? CCM_MAIN_COMPILED : spec === 'source' ? CCM_MAIN : spec;
  return { label, spec, main, nodeArgs: nodeArgs.split(' ').filter((a) => a !== '') };
}

const variants = [variant('A', values.a, values['a-node-args']), variant('B', values.b, values['b-node-args'])];

/** CPU seconds `v`'s CCM spends initializing NODES nodes (round `round`), with the cluster left as it was found. */
async function measure(
  cp: ControlPlane,
  admin: KubeClient,
  cloud: Devcloud,
  v: Variant,
  round: number,
): Promise<number> {
  const label = `cpu-r${round}-${v.label.toLowerCase()}`;
  const result = await burstRound(
    admin,
    {
      start: () =>
        startCCM(v.main === undefined ? 'upstream' : 'wasm_ccm', {
          info: cp.info,
          cloud,
          flags: FLAGS,
          name: label,
          ...(v.main !== undefined ? { main: v.main, nodeArgs: v.nodeArgs } : {}),
        }),
      instances: async (prefix, count) => devcloudInstances(cloud, prefix, count),
    },
    label,
    NODES,
  );
  return result.cpuSeconds;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

async function main(): Promise<void> {
  if (variants.some((v) => v.spec === 'dist')) {
    console.log('building dist/ (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  }
  const loadBefore = loadavg()[0] ?? 0;
  const cp = await ControlPlane.start({ apiserverFlags: ['--max-requests-inflight=800'] });
  const cloud = await startDevcloud({ token: 'compare-token' });
  const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
  const cpu: Record<'A' | 'B', number[]> = { A: [], B: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        const seconds = await measure(cp, admin, cloud, v, r);
        cpu[v.label].push(seconds);
        console.log(
          `round ${r + 1}/${ROUNDS} ${v.label} (${v.spec}): ${seconds.toFixed(2)} CPU s, ${((seconds / NODES) * 1000).toFixed(2)} ms/node`,
        );
      }
    }
  } finally {
    await cp.stop();
    await cloud.stop();
  }
  const ratios = cpu.A.map((a, i) => (cpu.B[i] as number) / a);
  const perNode = (xs: number[]) => ((median(xs) / NODES) * 1000).toFixed(2);
  console.log(
    `\n${formatTable(
      ['', 'A', 'B', 'B/A'],
      [
        ['CCM', values.a, values.b, ''],
        ['median CPU ms per node', perNode(cpu.A), perNode(cpu.B), median(ratios).toFixed(3)],
        ['rounds with B/A < 1', '', '', `${ratios.filter((x) => x < 1).length}/${ratios.length}`],
        ['per-round B/A', '', '', ratios.map((x) => x.toFixed(2)).join(' ')],
      ],
    )}`,
  );
  if (values.a === 'upstream' && values.b === 'dist') {
    const result = {
      description: `CPU seconds per ${NODES}-node initialization burst, ${ROUNDS} interleaved rounds (bench/upstream/node-init-cpu.ts)`,
      machine: {
        cores: availableParallelism(),
        load_avg_before: round3(loadBefore),
        load_avg_after: round3(loadavg()[0] ?? 0),
      },
      nodes: NODES,
      upstream_cpu_s: cpu.A.map(round3),
      wasm_ccm_cpu_s: cpu.B.map(round3),
      ratio_per_round: ratios.map(round3),
      ratio_median: round3(median(ratios)),
      upstream_ms_per_node: Number(perNode(cpu.A)),
      wasm_ccm_ms_per_node: Number(perNode(cpu.B)),
    };
    writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${values.out}`);
  }
  process.exit(0);
}

await main();
