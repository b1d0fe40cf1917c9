// How low a Node.js CCM's idle RSS can go, against bench:compare's "idle RSS" row. Each step is a fresh process with
// the image's Node flags and environment (jemalloc), measured after it settles:
//   node    Node.js with an idle event loop and nothing loaded;
//   watch   + one TLS connection to the apiserver with a watch on Nodes open (what any CCM holds);
//   wasm    + one worker thread holding an instance of the devcloud plugin's module (what a sandboxed plugin needs);
// (those three are bench/lib/idle-floor-child.mjs, plain JavaScript), then the two CCMs as bench:compare measures
// them at idle: started with its flags on a fresh devcloud, one Node initialized.
// Every step is measured `--rounds` times (each a new process); the table has the medians, RSS split into anonymous
// memory (heaps, stacks) and mapped files (the binary's code and data, shared libraries).
//
// Usage: npm run bench:idle-floor -- [--rounds=3] [--settle-ms=5000] [--out=bench/results/idle-floor.json]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { buildPlugin, discoverPlugins } from '../../scripts/build-plugins.ts';
import { CCM_MAIN_COMPILED, IMAGE_ENV, IMAGE_NODE_ARGS } from '../../lab/ccm/index.ts';
import { ControlPlane, type ControlPlaneInfo, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { sleep, warmUp } from '../lib/cluster-load.ts';
import { type MemoryStats, memoryStats, median, formatTable } from '../../lab/measure/index.ts';
import { type Impl, benchFlags, startCCM } from '../lib/start-ccm.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'settle-ms': { type: 'string', default: '5000' },
    out: { type: 'string', default: new URL('../results/idle-floor.json', import.meta.url).pathname },
  },
});
const ROUNDS = Number(values.rounds);
const SETTLE_MS = Number(values['settle-ms']);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: want a positive integer, got ${values.rounds}`);
if (!(SETTLE_MS >= 0)) throw new Error(`--settle-ms: want a non-negative number, got ${values['settle-ms']}`);

const CHILD = new URL('../lib/idle-floor-child.mjs', import.meta.url).pathname;
const FLOOR_STEPS = [
  { step: 'node', name: 'Node.js, idle event loop' },
  { step: 'watch', name: '+ TLS watch on the apiserver' },
  { step: 'wasm', name: '+ worker thread with a Wasm instance' },
] as const;
const CCMS: { impl: Impl; name: string }[] = [
  { impl: 'wasm_ccm', name: 'wasm-ccm (bench:compare idle)' },
  { impl: 'upstream', name: 'upstream CCM (bench:compare idle)' },
];

type Sample = Pick<MemoryStats, 'rssMb' | 'anonMb' | 'fileMb' | 'threads'>;

async function floorStep(step: string, info: ControlPlaneInfo, wasm: string): Promise<Sample> {
  const child = spawn(process.execPath, [...IMAGE_NODE_ARGS, CHILD, step], {
    env: {
      ...process.env,
      ...IMAGE_ENV,
      FLOOR_SERVER: info.server,
      FLOOR_CA: info.caPem,
      FLOOR_TOKEN: info.adminToken,
      FLOOR_WASM: wasm,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`floor step ${step} exited (${code}) before it was ready`)));
    });
    await sleep(SETTLE_MS);
    return memoryStats(child.pid!);
  } finally {
    child.kill();
  }
}

async function ccmIdle(impl: Impl): Promise<Sample> {
  // A control plane and devcloud of its own, as bench:compare gives each CCM.
  const cp = await ControlPlane.start({});
  const cloud = await startDevcloud({ token: 'idle-floor-token' });
  let ccm: { stop(): Promise<number | null> } | undefined;
  try {
    const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1e6, burst: 1e6, userAgent: 'bench' });
    const started = await startCCM(impl, {
      info: cp.info,
      cloud,
      flags: benchFlags(),
      name: 'idle-floor',
      main: CCM_MAIN_COMPILED,
      nodeArgs: [...IMAGE_NODE_ARGS],
    });
    ccm = started;
    const watch = await warmUp(admin, cloud, 'bench.wasm-ccm/idle-floor');
    await watch.stop();
    // bench:compare samples right after the warm-up node; so does this.
    return memoryStats(started.pid);
  } finally {
    await ccm?.stop().catch(() => undefined);
    await cloud.stop();
    await cp.stop();
  }
}

function medianSample(samples: Sample[]): Sample {
  const of = (key: keyof Sample): number => median(samples.map((s) => s[key]));
  return { rssMb: of('rssMb'), anonMb: of('anonMb'), fileMb: of('fileMb'), threads: of('threads') };
}

const devcloud = discoverPlugins().find((p) => p.name === 'devcloud');
if (!devcloud) throw new Error('plugins/devcloud not found');
const wasm = (await buildPlugin(devcloud)).outFile;
const samples = new Map<string, Sample[]>();
const add = (name: string, s: Sample): void => {
  samples.set(name, [...(samples.get(name) ?? []), s]);
  console.log(`  ${name}: ${s.rssMb} MB (anon ${s.anonMb}, file ${s.fileMb}), ${s.threads} threads`);
};
const cp = await ControlPlane.start({});
try {
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1}/${ROUNDS}`);
    for (const { step, name } of FLOOR_STEPS) add(name, await floorStep(step, cp.info, wasm));
  }
} finally {
  await cp.stop();
}
for (let round = 0; round < ROUNDS; round++) {
  console.log(`CCMs, round ${round + 1}/${ROUNDS}`);
  // Alternating which goes first, as bench:compare does.
  for (const { impl, name } of round % 2 === 0 ? CCMS : [...CCMS].reverse()) add(name, await ccmIdle(impl));
}

const rows = [...FLOOR_STEPS, ...CCMS].map(({ name }) => ({ name, ...medianSample(samples.get(name)!) }));
const upstream = rows.at(-1)!.rssMb;
console.log(
  `\n${formatTable(
    ['process', 'RSS MB', 'anon MB', 'file MB', 'threads', 'vs upstream'],
    rows.map((r) => [
      r.name,
      r.rssMb.toFixed(1),
      r.anonMb.toFixed(1),
      r.fileMb.toFixed(1),
      String(r.threads),
      (r.rssMb / upstream).toFixed(2),
    ]),
  )}`,
);
writeFileSync(
  values.out,
  `${JSON.stringify(
    {
      benchmark: 'idle-floor',
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version },
      node_args: IMAGE_NODE_ARGS,
      env: IMAGE_ENV,
      rounds: ROUNDS,
      settle_ms: SETTLE_MS,
      rows: rows.map((r) => ({ ...r, ratio_to_upstream: Math.round((r.rssMb / upstream) * 100) / 100 })),
      samples: Object.fromEntries(samples),
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${values.out}`);
process.exit(0);
