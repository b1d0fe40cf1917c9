// One chaos (or soak) run: the system, the driver's load, the faults (none in a soak), the continuous invariants,
// resource sampling, then the end of load and faults, the settle, the eventual invariants and the figures.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LeaseHistory } from './lease-history.ts';
import { Driver, type DriverBounds } from './driver.ts';
import { FaultInjector } from './faults.ts';
import { type ChaosFigures, firstReconcile, replicaFigures } from './figures.ts';
import { InvariantMonitor, settledViolations } from './invariants.ts';
import { chaosModules } from './modules.ts';
import { Random } from './random.ts';
import { ServiceTimeline } from './service-timeline.ts';
import { CLUSTER_CIDR, LEASE_MS, NAMESPACE, PLUGIN_CONFIGMAP, podCIDR, startSystem } from './system.ts';

export interface ChaosOptions {
  minutes: number;
  seed: number;
  soak: boolean;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Longest wait for the eventual invariants after the load stops. */
  settleTimeoutMs?: number;
  /** Where to copy the replicas' logs at the end (kept for a look at what went wrong). */
  keepLogsIn?: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `body` every `everyMs` until `stop()`; resolves once the last run finished. */
function loop(everyMs: () => number, body: () => Promise<unknown>): { stop: () => Promise<void> } {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      await body().catch(() => undefined);
      if (!stopped) await sleep(everyMs());
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? (() => {});
  const started = Date.now();
  const at = (): string => `[${((Date.now() - started) / 1000).toFixed(1).padStart(7)}s]`;
  // The faults draw from their own generator: their order does not depend on how many steps the driver managed.
  const rng = new Random(o.seed);
  const faultRng = new Random(o.seed + 0x9e3779b9);
  const modules = await chaosModules();
  const system = await startSystem(modules);
  log(`${at()} system up: control plane, kwok, devcloud, 2 replicas`);
  const { core, cloud, replicas } = system;
  const leases = new LeaseHistory(system.kube.admin, 'kube-system', 'cloud-controller-manager');
  const timeline = new ServiceTimeline();
  const monitor = new InvariantMonitor(cloud, leases, timeline);
  const bounds: DriverBounds = o.soak ? { nodes: [4, 8], services: [3, 6] } : { nodes: [3, 8], services: [2, 7] };
  const driver = new Driver(core, cloud, NAMESPACE, rng, timeline, bounds, podCIDR);
  const faults = new FaultInjector({
    controlPlane: system.controlPlane,
    cloud,
    core,
    replicas,
    leases,
    modules,
    configMap: PLUGIN_CONFIGMAP,
    rng: faultRng,
    leaseMs: LEASE_MS,
    outageMs: Math.min(60_000, Math.round((o.minutes * 60_000) / 8)),
  });
  const reconcileErrors: Record<string, number> = {};
  const readLogs = (): void => {
    for (const r of replicas.all) {
      for (const rec of r.readLog()) {
        if (rec.level !== 'error') continue;
        const key = `${String(rec.msg ?? '?')}${rec.controller ? ` [${String(rec.controller)}]` : ''}`;
        reconcileErrors[key] = (reconcileErrors[key] ?? 0) + 1;
      }
    }
  };
  const loops: { stop: () => Promise<void> }[] = [];
  try {
    leases.start();
    loops.push(
      loop(
        () => 500,
        async () => {
          readLogs();
          monitor.check();
        },
      ),
    );
    const sampleMs = o.soak ? 10_000 : 5_000;
    loops.push(
      loop(
        () => sampleMs,
        () => Promise.all(replicas.live.map((r) => r.sample(Date.now() - started))),
      ),
    );
    const end = started + o.minutes * 60_000;
    const load = loop(
      () => (o.soak ? 2_000 : rng.int(300, 1_200)),
      async () => {
        const did = await driver.step();
        if (did && !o.soak) log(`${at()} load: ${did}`);
      },
    );
    loops.push(load);
    if (!o.soak) {
      const chaos = loop(
        () => faultRng.int(2_000, 5_000),
        async () => {
          if (Date.now() > end - 10_000) return;
          const kind = faults.next();
          log(`${at()} fault: ${kind} ...`);
          log(`${at()} fault: ${kind}: ${await faults.inject(kind)}`);
        },
      );
      loops.push(chaos);
    }
    while (Date.now() < end) await sleep(1_000);
    log(`${at()} load and faults stop; settling`);
    await Promise.all(loops.splice(1).map((l) => l.stop()));
    return await settle(o, { system, driver, faults, monitor, leases, reconcileErrors, readLogs, started, log, at });
  } finally {
    await Promise.all(loops.map((l) => l.stop()));
    leases.stop();
    if (o.keepLogsIn) keepLogs(o.keepLogsIn, system, driver);
    await system.stop();
  }
}

function keepLogs(dir: string, system: Awaited<ReturnType<typeof startSystem>>, driver: Driver): void {
  mkdirSync(dir, { recursive: true });
  for (const r of system.replicas.all) copyFileSync(r.ccm.process.logPath, join(dir, `${r.name}.log`));
  writeFileSync(join(dir, 'driver-errors.txt'), `${driver.lastErrors.join('\n')}\n`);
}

interface SettleParts {
  system: Awaited<ReturnType<typeof startSystem>>;
  driver: Driver;
  faults: FaultInjector;
  monitor: InvariantMonitor;
  leases: LeaseHistory;
  reconcileErrors: Record<string, number>;
  readLogs: () => void;
  started: number;
  log: (line: string) => void;
  at: () => string;
}

async function settle(o: ChaosOptions, p: SettleParts): Promise<ChaosFigures> {
  const { system, driver, faults, monitor } = p;
  system.cloud.setKnobs({
    errorRate: 0,
    latencyMs: 0,
    outage: false,
    throttleNext: 0,
    resetNext: 0,
    resetAfterNext: 0,
  });
  await faults.restoreGood();
  await driver.nodes.finishRemovals();
  await driver.nodes.reassertKubeletsGone();
  const settleStart = Date.now();
  let last: string[];
  for (;;) {
    try {
      last = await settledViolations(system.kube.admin, system.cloud, NAMESPACE, CLUSTER_CIDR);
    } catch (err) {
      last = [`could not take the snapshots: ${(err as Error).message}`];
    }
    if (last.length === 0 || Date.now() - settleStart > (o.settleTimeoutMs ?? 120_000)) break;
    await sleep(1_000);
  }
  const settleMs = Date.now() - settleStart;
  p.log(`${p.at()} settle: ${last.length} violations after ${settleMs} ms`);
  // The Lease read after every mutation: judge the rest.
  await sleep(1_500);
  p.readLogs();
  monitor.finish();
  const replicas = system.replicas.all;
  const tenures = p.leases.tenures.length;
  return {
    mode: o.soak ? 'soak' : 'chaos',
    seed: o.seed,
    minutes: o.minutes,
    driverSteps: driver.done,
    driverStepsFailed: driver.failed,
    faults: faults.counts,
    faultsSkipped: faults.skipped,
    failovers: faults.failovers,
    leaseTransitions: Math.max(0, tenures - 1),
    toFirstReconcileMs: firstReconcile(faults.failovers, LEASE_MS + 2_000),
    violations: monitor.violations,
    settleViolations: last,
    settleMs,
    nonLeaderMutations: monitor.violations.filter((v) => v.kind === 'non-leader-mutation').length,
    mutationsJudged: monitor.mutationsChecked,
    loadBalancerDeletesJudged: monitor.loadBalancerDeletesChecked,
    reconcileErrors: p.reconcileErrors,
    pluginInstanceRestarts: replicas.reduce((sum, r) => sum + r.pluginRestarts, 0),
    replicasStarted: replicas.length,
    replicas: replicas.map((r) =>
      replicaFigures(
        r.name,
        r.samples,
        o.soak ? Math.min(5 * 60_000, (o.minutes * 60_000) / 3) : 30_000,
        r.ccm.process.exitStatus,
      ),
    ),
  };
}
