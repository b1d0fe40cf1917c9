// An InstanceSet over stand-in instances, for the pool's tests.
import type { ExitCause } from '../../../../host/src/plugin/sandbox/plugin-instance.ts';
import {
  type InstanceExitListener,
  InstanceSet,
  type InstanceSetOptions,
} from '../../../../host/src/plugin/sandbox/instance-set.ts';
import { recordingLogger } from './recording-logger.ts';

// A stand-in for PluginInstance: the pool only needs id, alive and terminate, and to be told when one ends.
export class FakeInstance {
  static next = 1;
  readonly id = FakeInstance.next++;
  alive = true;
  cause: ExitCause | undefined;
  readonly #onExit: InstanceExitListener<FakeInstance>;
  constructor(onExit: InstanceExitListener<FakeInstance>) {
    this.#onExit = onExit;
  }
  async terminate(cause: ExitCause, reason: string): Promise<void> {
    this.die(cause, reason);
  }
  die(cause: ExitCause = 'crash', reason = 'died'): void {
    if (this.cause !== undefined) return;
    this.alive = false;
    this.cause = cause;
    this.#onExit(this, cause, reason);
  }
  /** Out of service at once, its worker still stopping (a call lost at its deadline): `die` reports the exit later. */
  lose(): void {
    this.alive = false;
  }
}

const pools: InstanceSet<FakeInstance>[] = [];

export async function closePools(): Promise<void> {
  await Promise.all(pools.splice(0).map((p) => p.close()));
}

export function makePool(options: Partial<InstanceSetOptions<FakeInstance>> & { failStarts?: number } = {}) {
  const started: FakeInstance[] = [];
  const restarts: ExitCause[] = [];
  const shrunk: number[] = [];
  let failures = options.failStarts ?? 0;
  const pool = new InstanceSet<FakeInstance>({
    size: 2,
    logger: recordingLogger().logger,
    onRestart: (cause) => restarts.push(cause),
    onShrunk: () => shrunk.push(started.filter((i) => i.alive).length),
    restartBackoffMs: 10,
    start: async (onExit) => {
      await new Promise((r) => setTimeout(r, 5));
      if (failures > 0) {
        failures--;
        throw new Error('initialize said no');
      }
      const instance = new FakeInstance(onExit);
      started.push(instance);
      return instance;
    },
    ...options,
  });
  pools.push(pool);
  return { pool, started, restarts, shrunk };
}

export const hold = () => {
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
};
