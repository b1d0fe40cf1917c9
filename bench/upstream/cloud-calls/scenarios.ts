// The scenarios of bench:cloud-calls after a burst, each counted from the cloud's records while one CCM runs: one
// node-status-update pass over every Node, and a NotReady storm over a window of the node-monitor period's passes.
import { performance } from 'node:perf_hooks';
import type { KubeClient } from '../../../host/src/kube/client/client.ts';
import { readyCondition } from '../../../lab/ccm/index.ts';
import { inParallel, sleep } from '../../lib/cluster-load.ts';
import type { CloudRun } from './clouds.ts';

const POLL_MS = 250;
/** No cloud request for this long: the CCM's work of the moment is over (a status pass never pauses this long). */
export const QUIET_MS = 3_000;

/** Waits until the cloud saw no request for QUIET_MS; the reading at the start of that quiet stretch. */
export async function waitQuiet<M>(run: CloudRun<M>, timeoutMs: number, what: string): Promise<M> {
  const deadline = performance.now() + timeoutMs;
  let last = run.mark();
  let since = performance.now();
  for (;;) {
    await sleep(POLL_MS);
    const now = run.mark();
    if (run.totalAt(now) !== run.totalAt(last)) {
      last = now;
      since = performance.now();
    } else if (performance.now() - since >= QUIET_MS) {
      return last;
    }
    if (performance.now() > deadline) throw new Error(`${what}: the cloud never went quiet in ${timeoutMs / 1000} s`);
  }
}

export interface Counted {
  requests: Record<string, number>;
  /** How long the counted work took, ms. */
  ms: number;
}

/**
 * The next node-status-update pass: from a quiet cloud, the first request after it up to the next quiet stretch.
 * `periodMs` (the CCM's --node-status-update-frequency) bounds the wait for it to start.
 */
export async function statusPass<M>(run: CloudRun<M>, periodMs: number): Promise<Counted & { startedAt: number }> {
  const before = await waitQuiet(run, 120_000, 'before the status pass');
  const base = run.totalAt(before);
  const deadline = performance.now() + periodMs + 60_000;
  while (run.totalAt(run.mark()) === base) {
    if (performance.now() > deadline) throw new Error(`no status pass within ${periodMs / 1000} s + 60 s`);
    await sleep(POLL_MS);
  }
  const startedAt = performance.now();
  const after = await waitQuiet(run, 600_000, 'the status pass');
  return { requests: run.between(before, after), ms: performance.now() - QUIET_MS - startedAt, startedAt };
}

/**
 * Marks `nodes` NotReady through nodes/status (as the node lifecycle does when kubelets stop reporting), then counts
 * the cloud's requests for `windowMs` from the moment all of them are NotReady.
 */
export async function notReadyStorm<M>(
  admin: KubeClient,
  run: CloudRun<M>,
  nodes: readonly string[],
  windowMs: number,
): Promise<Counted> {
  await inParallel(nodes, 20, (name) =>
    admin.patch(
      `/api/v1/nodes/${name}/status`,
      { status: { conditions: [readyCondition(false, new Date())] } },
      'strategic-merge',
    ),
  );
  const before = run.mark();
  const t0 = performance.now();
  await sleep(windowMs);
  const after = run.mark();
  return { requests: run.between(before, after), ms: performance.now() - t0 };
}
