// The faults, drawn from the seed like a deck of cards (every kind once before any twice): process faults on the
// leader replica, control-plane restarts, devcloud faults through its knobs, and hot swaps of the plugin through its
// ConfigMap. Each fault runs to its end (a pause until SIGCONT, a cloud fault until its knobs are cleared, a bad
// module until a good one replaced it), so faults never overlap.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Devcloud } from '../../devcloud/src/index.ts';
import type { ControlPlane } from '../controlplane/index.ts';
import { putPluginConfigMap } from '../ccm/index.ts';
import type { LeaseHistory } from './lease-history.ts';
import type { ChaosModules } from './modules.ts';
import type { Random } from './random.ts';
import type { Replica, ReplicaSet } from './replicas.ts';

export const FAULT_KINDS = [
  'kill-leader',
  'pause-leader',
  'restart-apiserver',
  'restart-etcd',
  'cloud-5xx',
  'cloud-429',
  'cloud-latency',
  'cloud-resets',
  'cloud-outage',
  'swap-good',
  'swap-bad-checks',
  'swap-hang',
  'swap-trap',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Failover {
  kind: FaultKind;
  /** When the leader was killed or paused (ms since the epoch). */
  at: number;
  from: string;
  to: string;
  /** From the kill or pause to the new leader's controllers starting; undefined when none did within 60 s. */
  toFirstReconcileMs: number | undefined;
}

export interface FaultContext {
  controlPlane: ControlPlane;
  cloud: Devcloud;
  core: CoreV1Api;
  replicas: ReplicaSet;
  leases: LeaseHistory;
  modules: ChaosModules;
  configMap: { name: string; key: string };
  rng: Random;
  leaseMs: number;
  /** Longest cloud outage (a minute in a long run, less in a short one). */
  outageMs: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class FaultInjector {
  readonly counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  readonly failovers: Failover[] = [];
  readonly skipped: string[] = [];
  #deck: FaultKind[] = [];
  #good: 'v1' | 'v2' = 'v1';

  private readonly c: FaultContext;

  constructor(c: FaultContext) {
    this.c = c;
  }

  next(): FaultKind {
    if (this.#deck.length === 0) {
      this.#deck = [...FAULT_KINDS];
      for (let i = this.#deck.length - 1; i > 0; i--) {
        const j = this.c.rng.int(0, i);
        [this.#deck[i], this.#deck[j]] = [this.#deck[j]!, this.#deck[i]!];
      }
    }
    return this.#deck.pop()!;
  }

  /** Runs one fault to its end; resolves with what it did. */
  async inject(kind: FaultKind): Promise<string> {
    const did = await this.run(kind);
    if (did.startsWith('skipped')) this.skipped.push(`${kind}: ${did}`);
    else this.counts[kind]++;
    return did;
  }

  private async run(kind: FaultKind): Promise<string> {
    const { rng, cloud } = this.c;
    switch (kind) {
      case 'kill-leader':
        return this.leaderFault(kind, async (leader) => leader.ccm.process.killNow());
      case 'pause-leader':
        return this.leaderFault(kind, async (leader) => {
          leader.paused = true;
          leader.ccm.process.signal('SIGSTOP');
          // Longer than the lease: the other replica takes over while this one sleeps; waking, it must not act.
          await sleep(this.c.leaseMs + rng.int(2_000, 4_000));
          leader.ccm.process.signal('SIGCONT');
          leader.paused = false;
        });
      case 'restart-apiserver': {
        const downMs = rng.int(500, 3_000);
        await this.c.controlPlane.restartAPIServer({ hard: rng.chance(0.5), downMs });
        return `kube-apiserver restarted (down ${downMs} ms)`;
      }
      case 'restart-etcd': {
        const downMs = rng.int(500, 3_000);
        await this.c.controlPlane.restartEtcd({ hard: rng.chance(0.5), downMs });
        return `etcd restarted (down ${downMs} ms)`;
      }
      case 'cloud-5xx':
        return this.cloudFault(
          { errorRate: 0.3, errorSeed: rng.int(0, 0xffff) },
          { errorRate: 0 },
          rng.int(4_000, 10_000),
        );
      case 'cloud-429': {
        const count = rng.int(10, 40);
        cloud.setKnobs({ throttleNext: count, retryAfterSeconds: rng.int(1, 2) });
        return `429 with Retry-After for the next ${count} calls`;
      }
      case 'cloud-latency':
        return this.cloudFault({ latencyMs: rng.int(800, 2_500) }, { latencyMs: 0 }, rng.int(4_000, 10_000));
      case 'cloud-resets': {
        cloud.setKnobs({ resetNext: rng.int(2, 5), resetAfterNext: rng.int(1, 3) });
        return `connection resets: ${cloud.knobs().resetNext} before, ${cloud.knobs().resetAfterNext} after the work`;
      }
      case 'cloud-outage':
        return this.cloudFault({ outage: true }, { outage: false }, this.c.outageMs);
      case 'swap-good':
        this.#good = this.#good === 'v1' ? 'v2' : 'v1';
        await this.put(this.c.modules[this.#good]);
        return `hot swap to devcloud ${this.#good}`;
      case 'swap-bad-checks':
        return this.badSwap('abiV2', 'a module failing its checks (ABI 2)', 3_000);
      case 'swap-hang':
        return this.badSwap('hang', 'a module hanging in listRoutes', rng.int(8_000, 14_000));
      case 'swap-trap':
        return this.badSwap('trap', 'a module trapping in getLoadBalancer', rng.int(5_000, 10_000));
    }
  }

  private async cloudFault(
    on: Parameters<Devcloud['setKnobs']>[0],
    off: Parameters<Devcloud['setKnobs']>[0],
    ms: number,
  ) {
    this.c.cloud.setKnobs(on);
    await sleep(ms);
    this.c.cloud.setKnobs(off);
    return `${JSON.stringify(on)} for ${ms} ms`;
  }

  /** A bad module in the ConfigMap for a while, then a good one again (a new replica would start on what is there). */
  private async badSwap(which: 'abiV2' | 'hang' | 'trap', what: string, ms: number): Promise<string> {
    await this.put(this.c.modules[which]);
    await sleep(ms);
    await this.put(this.c.modules[this.#good]);
    return `${what} for ${ms} ms, then devcloud ${this.#good} again`;
  }

  /** Puts a good module back (the run's end). */
  restoreGood(): Promise<void> {
    return this.put(this.c.modules[this.#good]);
  }

  private put(module: Uint8Array): Promise<void> {
    return putPluginConfigMap(this.c.core, this.c.configMap.name, this.c.configMap.key, module);
  }

  /** Finds the leader, does `act` to it, and measures the failover to the new leader's first reconcile. */
  private async leaderFault(kind: FaultKind, act: (leader: Replica) => Promise<void>): Promise<string> {
    const holder = this.c.leases.leaderAt(Date.now());
    const leader = this.c.replicas.byIdentity(holder);
    if (!leader?.running) return `skipped: no replica of ours leads (holder '${holder}')`;
    const at = Date.now();
    const failover = this.waitForNewLeader(kind, leader, at);
    await act(leader);
    const done = await failover;
    this.failovers.push(done);
    return `${leader.name} ${kind === 'kill-leader' ? 'SIGKILLed' : 'paused'}; ${done.to || 'nobody'} leading after ${done.toFirstReconcileMs ?? 'more than 60000'} ms`;
  }

  private async waitForNewLeader(kind: FaultKind, old: Replica, at: number): Promise<Failover> {
    const deadline = at + 60_000;
    while (Date.now() < deadline) {
      await sleep(100);
      const next = this.c.replicas.all.find((r) => r !== old && r.controllersAt !== undefined && r.controllersAt >= at);
      if (next) return { kind, at, from: old.name, to: next.name, toFirstReconcileMs: next.controllersAt! - at };
    }
    return { kind, at, from: old.name, to: '', toFirstReconcileMs: undefined };
  }
}
