// Scenarios as data: what to seed before the CCM starts, then steps (act, wait for a positive sign, settle on
// watermarks, checkpoint). A group's scenarios share one control plane, devcloud and CCM per side; each scenario's
// objects carry its name as their prefix, so the scenarios stay apart and each checkpoint covers one scenario.
import type { Devcloud } from '../../../../devcloud/src/index.ts';
import type { WatermarkKind } from './watermark.ts';
import type { World } from './world.ts';

export interface Step {
  name: string;
  act?: (world: World) => Promise<unknown>;
  /** A positive sign that the step took effect on this side, polled until true (45 s at most). */
  until?: (world: World) => Promise<boolean> | boolean;
  /** How long `until` may take (default 45 s): a bound upstream meets by design, e.g. its 30 s Service resync. */
  withinMs?: number;
  /** Watermarks to reach after `until`, before the checkpoint (what must NOT have happened is read after them). */
  settle?: readonly WatermarkKind[];
  /** Snapshot the scenario's objects after the step (default true). */
  checkpoint?: boolean;
  /** More to compare at the checkpoint than objects (e.g. what the CCM's log says), as key = value. */
  observe?: (world: World) => Promise<Record<string, string>> | Record<string, string>;
}

export interface Scenario {
  /** Unique in its group; every object of the scenario is named `<name>-...`. */
  name: string;
  /** Instances, routes and LBs the cloud holds before the CCM starts. */
  seedCloud?: (cloud: Devcloud) => void;
  /** Nodes and Services that exist before the CCM starts. */
  seedCluster?: (world: World) => Promise<unknown>;
  steps: readonly Step[];
  /** Snapshot keys whose value depends on when a timer fired (a retry count), not compared; say why. */
  volatile?: { path: RegExp; reason: string };
}

export interface Group {
  name: string;
  /** --cluster-cidr values, one per IP family. */
  clusterCIDRs: readonly string[];
  /** Flags beyond commonFlags(), given to both CCMs. */
  flags?: readonly string[];
  /** How many lifecycle watermarks the group's steps take. */
  lifecyclePool?: number;
  scenarios: readonly Scenario[];
  /** Watermarks after every step, before its own. */
  everyStep?: readonly WatermarkKind[];
  /** Watermarks before the final snapshot. */
  settle: readonly WatermarkKind[];
}
