// One round of a node-initialization burst, shared by bench:node-init-cpu and bench:cloud-calls: a fresh CCM, a
// warm-up Node (once it is initialized the controllers run), then N tainted Ready Nodes registered at once. Measures
// the CCM's CPU seconds from the burst's start until every node is initialized and each node's taint-removal latency
// (its ADDED event to its first version without the taint, seen by an outside watch). Then the CCM stops and the
// round's Nodes are deleted, so rounds of either CCM can follow each other on one control plane.
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import { HttpMethod } from '../../host/src/kube/client/http-method.ts';
import { cpuSeconds } from '../../lab/measure/index.ts';
import { createNodes, warmUpNode } from './cluster-load.ts';
import type { NodeInitWatch } from './node-init-watch.ts';
import type { StartedCCM } from './start-ccm.ts';

/** The CCM of a round and the cloud it runs against. */
export interface BurstTarget {
  start(): Promise<StartedCCM>;
  /** Makes `count` instances in the cloud; the names their Nodes register with, in order. */
  instances(prefix: string, count: number): Promise<string[]>;
}

export interface BurstHooks {
  /** Right before the burst's Nodes are created: a reading of the cloud's counters, say. */
  beforeBurst?(): Promise<void>;
  /** Once every node is initialized and the CPU read, while the CCM still runs and the Nodes are there. */
  afterBurst?(round: { ccm: StartedCCM; nodes: readonly string[]; runLabel: string }): Promise<void>;
}

export interface BurstResult {
  /** The CCM's CPU seconds for the burst. */
  cpuSeconds: number;
  /** Taint-removal latency of every burst node, ms, sorted. */
  latenciesMs: number[];
  /** The CCM's exit code. */
  exitCode: number | null;
}

/** A burst of `nodes` Nodes for the round labelled `label` (unique per round and CCM), the cluster left as found. */
export async function burstRound(
  admin: KubeClient,
  target: BurstTarget,
  label: string,
  nodes: number,
  hooks: BurstHooks = {},
): Promise<BurstResult> {
  // A label of this round's own: its nodes are watched, then deleted, apart from every other round's.
  const runLabel = `bench.wasm-ccm/${label}`;
  let ccm: StartedCCM | undefined;
  let watch: NodeInitWatch | undefined;
  try {
    ccm = await target.start();
    const [warm] = await target.instances(`${label}-warmup`, 1);
    watch = await warmUpNode(admin, runLabel, warm as string);
    const burst = await target.instances(label, nodes);
    await hooks.beforeBurst?.();
    const cpu0 = cpuSeconds(ccm.pid);
    await createNodes(admin, burst, { [runLabel]: 'burst' });
    await watch.waitCleared(nodes + 1, 600_000);
    const cpu = cpuSeconds(ccm.pid) - cpu0;
    const w = watch;
    const latenciesMs = burst
      .map((n) => (w.cleared.get(n) ?? Number.NaN) - (w.added.get(n) ?? Number.NaN))
      .sort((a, b) => a - b);
    await watch.stop();
    watch = undefined;
    await hooks.afterBurst?.({ ccm, nodes: burst, runLabel });
    const exitCode = await ccm.stop();
    ccm = undefined;
    return { cpuSeconds: cpu, latenciesMs, exitCode };
  } finally {
    await watch?.stop();
    await ccm?.stop();
    await admin.request({ method: HttpMethod.DELETE, path: '/api/v1/nodes', query: { labelSelector: runLabel } });
  }
}
