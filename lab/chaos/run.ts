// One chaos (or soak) run: the system, the driver's load, the faults (none in a soak), the continuous invariants,
// resource sampling, then the end of load and faults, the settle, the eventual invariants and the figures.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { IMAGE_ENV, IMAGE_NODE_ARGS } from '../ccm/index.ts';
import { Driver, type DriverBounds } from './driver.ts';
import { FaultInjector } from './faults.ts';
import { type ChaosFigures, firstReconcile, replicaFigures } from './figures.ts';
import { InvariantMonitor, settledViolations } from './invariants.ts';
import { LeaseHistory } from './lease-history.ts';
import { chaosModules } from './modules.ts';
import { Random } from './random.ts';
import { ServiceTimeline } from './service-timeline.ts';
import {
  type ChaosSystem,
  CLUSTER_CIDR,
  LEASE_MS,
  NAMESPACE,
  PLUGIN_CONFIGMAP,
  podCIDR,
  startSystem,
} from './system.ts';

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
  /** Run the replicas with the image's allocator and Node options (lab/ccm/image.ts); default plain `node`. */
  imageRuntime?: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The service controller retries a failing Service after up to 300 s (upstream's maxRetryDelay): one that failed all
 * through a one-minute outage may wait that long before its next try, so the settle waits longer than that.
 */
const SETTLE_TIMEOUT_MS = 360_000;

interface Loop {
  stop: () => Promise<void>;
}

/** Runs `body` again `everyMs()` after each run ends, until stopped; stop() resolves once the last run finished. */
function loop(everyMs: () => number, body: () => Promise<unknown>): Loop {
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

class ChaosRun {
  readonly started = Date.now();
  readonly rng: Random;
  /** The faults draw from their own generator: their order does not depend on how many steps the driver managed. */
  readonly faultRng: Random;
  readonly leases: LeaseHistory;
  readonly timeline = new ServiceTimeline();
  readonly monitor: InvariantMonitor;
  readonly driver: Driver;
  readonly faults: FaultInjector;
  readonly reconcileErrors: Record<string, number> = {};
  readonly #o: ChaosOptions;
  readonly #system: ChaosSystem;

  constructor(o: ChaosOptions, system: ChaosSystem, modules: Awaited<ReturnType<typeof chaosModules>>) {
    this.#o = o;
    this.#system = system;
    this.rng = new Random(o.seed);
    this.faultRng = new Random(o.seed + 0x9e3779b9);
    const coordination = system.kube.admin.makeApiClient(CoordinationV1Api);
    this.leases = new LeaseHistory(() =>
      coordination.readNamespacedLease({ namespace: 'kube-system', name: 'cloud-controller-manager' }),
    );
    this.monitor = new InvariantMonitor(system.cloud, this.leases, this.timeline);
    const bounds: DriverBounds = o.soak ? { nodes: [4, 8], services: [3, 6] } : { nodes: [3, 8], services: [2, 7] };
    this.driver = new Driver(system.core, system.cloud, NAMESPACE, this.rng, this.timeline, bounds, podCIDR);
    this.faults = new FaultInjector({
      ...system,
      leases: this.leases,
      modules,
      configMap: PLUGIN_CONFIGMAP,
      rng: this.faultRng,
      leaseMs: LEASE_MS,
      outageMs: Math.min(60_000, Math.round((o.minutes * 60_000) / 8)),
    });
  }

  log(line: string): void {
    this.#o.log?.(`[${((Date.now() - this.started) / 1000).toFixed(1).padStart(7)}s] ${line}`);
  }

  /** New records of every replica's log; error records counted by message (and controller). */
  readLogs(): void {
    for (const r of this.#system.replicas.all) {
      for (const rec of r.readLog()) {
        if (rec.level !== 'error') continue;
        const key = `${String(rec.msg ?? '?')}${rec.controller ? ` [${String(rec.controller)}]` : ''}`;
        this.reconcileErrors[key] = (this.reconcileErrors[key] ?? 0) + 1;
      }
    }
  }

  /** Load, faults and sampling until the end of the run; the invariant monitor runs until `monitor` is stopped. */
  async drive(): Promise<Loop> {
    const o = this.#o;
    const end = this.started + o.minutes * 60_000;
    const { replicas } = this.#system;
    const monitor = loop(
      () => 500,
      async () => {
        this.readLogs();
        this.monitor.check();
      },
    );
    await this.firstLeader();
    const sampleMs = o.soak ? 10_000 : 5_000;
    const loops = [
      loop(
        () => sampleMs,
        () => Promise.all(replicas.live.map((r) => r.sample(Date.now() - this.started))),
      ),
      loop(
        () => (o.soak ? 2_000 : this.rng.int(300, 1_200)),
        async () => {
          const did = await this.driver.step();
          if (did && !o.soak) this.log(`load: ${did}`);
        },
      ),
    ];
    if (!o.soak)
      loops.push(
        loop(
          () => this.faultRng.int(2_000, 5_000),
          () => this.nextFault(end),
        ),
      );
    while (Date.now() < end) await sleep(1_000);
    this.log('load and faults stop; settling');
    await Promise.all(loops.map((l) => l.stop()));
    return monitor;
  }

  /** Load and faults start once a replica leads (a fault aimed at the leader needs one). */
  private async firstLeader(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.leases.leaderAt(Date.now()) === '' && Date.now() < deadline) await sleep(200);
    this.log(`leading: ${this.leases.leaderAt(Date.now()) || 'nobody after 60 s'}`);
  }

  private async nextFault(end: number): Promise<void> {
    if (Date.now() > end - 10_000) return;
    const kind = this.faults.next();
    this.log(`fault: ${kind} ...`);
    this.log(`fault: ${kind}: ${await this.faults.inject(kind)}`);
  }

  /** Faults cleared, a good module in place, removals finished: waits for the eventual invariants. */
  async settle(): Promise<{ violations: string[]; ms: number }> {
    const { cloud, kube } = this.#system;
    cloud.setKnobs({ errorRate: 0, latencyMs: 0, outage: false, throttleNext: 0, resetNext: 0, resetAfterNext: 0 });
    await this.faults.restoreGood();
    await this.driver.nodes.finishRemovals();
    await this.driver.nodes.reassertKubeletsGone();
    const start = Date.now();
    let violations: string[];
    for (;;) {
      try {
        violations = await settledViolations(kube.admin, cloud, NAMESPACE, CLUSTER_CIDR);
      } catch (err) {
        violations = [`could not take the snapshots: ${(err as Error).message}`];
      }
      if (violations.length === 0 || Date.now() - start > (this.#o.settleTimeoutMs ?? SETTLE_TIMEOUT_MS)) break;
      await sleep(1_000);
    }
    this.log(`settle: ${violations.length} violations after ${Date.now() - start} ms`);
    return { violations, ms: Date.now() - start };
  }

  figures(settled: { violations: string[]; ms: number }): ChaosFigures {
    const o = this.#o;
    const replicas = this.#system.replicas.all;
    const violations = this.monitor.violations;
    const warmupMs = o.soak ? Math.min(5 * 60_000, (o.minutes * 60_000) / 3) : 30_000;
    return {
      mode: o.soak ? 'soak' : 'chaos',
      runtime: o.imageRuntime ? `the image's: ${IMAGE_NODE_ARGS.join(' ')}, ${IMAGE_ENV.LD_PRELOAD}` : 'plain node',
      seed: o.seed,
      minutes: o.minutes,
      driverSteps: this.driver.done,
      driverStepsFailed: this.driver.failed,
      faults: this.faults.counts,
      faultsSkipped: this.faults.skipped,
      failovers: this.faults.failovers,
      leaseTransitions: Math.max(0, this.leases.tenures.length - 1),
      toFirstReconcileMs: firstReconcile(this.faults.failovers, LEASE_MS + 2_000),
      violations,
      settleViolations: settled.violations,
      settleMs: settled.ms,
      nonLeaderMutations: violations.filter((v) => v.kind === 'non-leader-mutation').length,
      mutationsJudged: this.monitor.mutationsChecked,
      loadBalancerDeletesJudged: this.monitor.loadBalancerDeletesChecked,
      reconcileErrors: this.reconcileErrors,
      pluginInstanceRestarts: replicas.reduce((sum, r) => sum + r.pluginRestarts, 0),
      replicasStarted: replicas.length,
      replicas: replicas.map((r) => replicaFigures(r.name, r.samples, warmupMs, r.ccm.process.exitStatus)),
      samples: Object.fromEntries(replicas.map((r) => [r.name, r.samples])),
    };
  }

  keepLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const r of this.#system.replicas.all) copyFileSync(r.ccm.process.logPath, join(dir, `${r.name}.log`));
    writeFileSync(join(dir, 'driver-errors.txt'), `${this.driver.lastErrors.join('\n')}\n`);
  }
}

export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const modules = await chaosModules();
  const runtime = o.imageRuntime ? { nodeArgs: IMAGE_NODE_ARGS, env: IMAGE_ENV } : {};
  const system = await startSystem(modules, runtime);
  const run = new ChaosRun(o, system, modules);
  run.log('system up: control plane, kwok, devcloud, 2 replicas');
  let monitor: Loop | undefined;
  try {
    run.leases.start();
    monitor = await run.drive();
    const settled = await run.settle();
    await monitor.stop();
    // Every mutation judged, once the Lease has been read after the last of them.
    await sleep(1_500);
    run.readLogs();
    run.monitor.finish();
    return run.figures(settled);
  } finally {
    await monitor?.stop();
    run.leases.stop();
    if (o.keepLogsIn) run.keepLogs(o.keepLogsIn);
    await system.stop();
  }
}
