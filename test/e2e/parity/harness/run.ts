// Runs a group of scenarios against one CCM implementation and returns everything compared: a checkpoint per step
// (the scenario's objects then) and the final state of every object, each a flattened snapshot under its own prefix.
import { eventually } from '../../../../lab/process/index.ts';
import type { Snapshot } from '../../../support/parity/flatten.ts';
import type { Group, Scenario, Step } from './scenario.ts';
import { seg } from '../../../support/parity/flatten.ts';
import { everything, takeSnapshot, withPrefix } from './snapshot.ts';
import { type WatermarkKind, Watermarks } from './watermark.ts';
import { type Impl, World } from './world.ts';

const STEP_WAIT_MS = 45_000;

export interface GroupRun {
  group: Group;
  impl: Impl;
  logDir: string;
  /** Progress lines, kept for the failure message. */
  log: (line: string) => void;
}

export async function runGroup({ group, impl, logDir, log }: GroupRun): Promise<Snapshot> {
  const world = await World.start({
    impl,
    clusterCIDRs: group.clusterCIDRs,
    flags: group.flags ?? [],
    logDir,
    label: group.name,
  });
  const say = (m: string): void => log(`[${group.name} ${impl} ${world.elapsed()}s] ${m}`);
  try {
    const marks = new Watermarks(world, group.lifecyclePool ?? 0);
    await marks.seed();
    for (const s of group.scenarios) s.seedCloud?.(world.cloud);
    for (const s of group.scenarios) await s.seedCluster?.(world);
    await world.startCCM();
    await marks.start();
    say('CCM started');
    const out: Snapshot = new Map();
    for (const scenario of group.scenarios) {
      for (const [i, step] of scenario.steps.entries()) {
        await runStep(world, marks, scenario, step, group.everyStep ?? []);
        say(`${scenario.name}: ${step.name}`);
        if (step.checkpoint === false) continue;
        const prefix = `checkpoint/${scenario.name}/${i + 1}-${seg(step.name)}/`;
        for (const [k, v] of await takeSnapshot(world, withPrefix(`${scenario.name}-`), prefix)) out.set(k, v);
        for (const [k, v] of Object.entries((await step.observe?.(world)) ?? {})) out.set(`${prefix}observed/${k}`, v);
      }
    }
    await marks.settle(group.settle);
    for (const [k, v] of await takeSnapshot(world, everything, 'final/')) out.set(k, v);
    dropVolatile(out, group);
    say('done');
    return out;
  } catch (err) {
    say(`failed: ${String(err)}`);
    throw new Error(`${group.name} against ${impl}: ${String(err)} (CCM log: ${world.logFile()})`, { cause: err });
  } finally {
    await world.stop();
  }
}

async function runStep(
  world: World,
  marks: Watermarks,
  scenario: Scenario,
  step: Step,
  everyStep: readonly WatermarkKind[],
): Promise<void> {
  await step.act?.(world);
  const until = step.until;
  if (until) await eventually(`${scenario.name}: ${step.name}`, () => until(world), step.withinMs ?? STEP_WAIT_MS, 100);
  await marks.settle([...everyStep, ...(step.settle ?? [])]);
}

/** Removes the keys scenarios declare timing-dependent (see Scenario.volatile). */
function dropVolatile(out: Snapshot, group: Group): void {
  const patterns = group.scenarios.flatMap((s) => (s.volatile ? [s.volatile.path] : []));
  for (const key of [...out.keys()]) if (patterns.some((p) => p.test(key))) out.delete(key);
}
