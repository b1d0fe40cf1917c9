// The worker threads plugin instances run in. A worker holds up to `capacity` instances of one plugin (slots, each an
// instantiation of the module with a channel of its own: worker/guest-slot.ts). A slot whose call waits for the main
// thread (HTTP, a sleep) is suspended (JSPI), so one thread serves several concurrent calls that mostly wait on the
// cloud, and a burst of calls starts a worker per `capacity` instances rather than one per instance: each worker is
// ~100 ms of CPU to start (Node's bootstrap and the runtime's modules) and megabytes resident.
//
// What slots share is the thread: a call that computes without end holds up the other slots' calls until its
// deadline, when the whole worker is terminated (the only way to stop running Wasm) and every instance in it is lost
// with it, their calls failing with the same cause. A slot that is merely retired (a trap, a limit, a recycle) is
// closed alone; a worker whose last slot closes is terminated.
import { Worker } from 'node:worker_threads';
import type { Channel } from './channel.ts';
import type { LogBuffer } from './log-buffer.ts';
import type { LogMessage, WorkerLimits, WorkerStartData } from './worker/worker-protocol.ts';
import { isWorkerMessage } from './worker/worker-protocol.ts';
import type { WorkerResourceLimits } from './worker/worker-heap.ts';
import { errorMessage } from '../../util/error-message.ts';
import { type TerminationResult, startAfterTerminations, terminateAfterStarts } from './worker-lifecycle.ts';

// Same extension as this file: .ts when Node runs the sources, .js when they were compiled to dist/.
const WORKER_URL = new URL(`./worker/worker-entry${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url);

/** The memory a slot shares with the main thread: calls go through the channel, its log records through `logs`. */
export interface SlotBuffers {
  channel: Channel;
  logs: LogBuffer;
}

/** What a slot's owner (a PluginInstance) hears of its worker. */
export interface SlotEvents {
  onLog(message: LogMessage): void;
  /** The worker is being terminated for `why`: the slot is out of service now (its exit is reported at the exit). */
  onWorkerStopping(why: TerminationCause): void;
  /** The worker is gone (after terminate(), a crash, an uncaught error). */
  onWorkerExit(reason: string): void;
}

export interface TerminationCause {
  cause: 'timeout' | 'crash';
  reason: string;
}

/** Why a slot could not be opened (the module's start function threw, the worker died or did not answer in time). */
export class SlotOpenError extends Error {
  override name = 'SlotOpenError';
}

interface PendingOpen {
  resolve: () => void;
  reject: (err: Error) => void;
}

let nextSlot = 1;

export class PluginWorker {
  readonly capacity: number;
  readonly #slots = new Map<number, SlotEvents>();
  /** Slots out of service, closed a moment later (PluginInstance's retire); not counted against capacity. */
  readonly #retiring = new Set<number>();
  readonly #opening = new Map<number, PendingOpen>();
  #worker: Worker | null = null;
  readonly #spawned: Promise<void>;
  #markSpawned: () => void = () => undefined;
  #exitReason: string | null = null;
  #errorMessage: string | null = null;
  #terminatedFor: TerminationCause | null = null;
  #termination: Promise<TerminationResult> | null = null;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#spawned = new Promise<void>((resolve) => {
      this.#markSpawned = resolve;
    });
  }

  /** Slots that can still be opened here (0 once the worker is terminating or gone). */
  get free(): number {
    if (this.#termination !== null || this.#exitReason !== null) return 0;
    return this.capacity - this.#slots.size + this.#retiring.size;
  }

  get alive(): boolean {
    return this.#exitReason === null;
  }

  /** Creates the thread (start it through startAfterTerminations: worker-lifecycle.ts). */
  spawn(data: WorkerStartData, resourceLimits: WorkerResourceLimits): void {
    try {
      this.#spawn(data, resourceLimits);
    } catch (err) {
      this.#exitReason ??= `the worker could not be created: ${errorMessage(err)}`;
      throw err;
    } finally {
      this.#markSpawned();
    }
  }

  #spawn(data: WorkerStartData, resourceLimits: WorkerResourceLimits): void {
    if (this.#exitReason !== null)
      throw new SlotOpenError(`its worker was stopped before it started (${this.#exitReason})`);
    const worker = startWorker(
      (execArgv) =>
        new Worker(WORKER_URL, {
          workerData: data,
          env: {},
          argv: [],
          // Importing js-sdk loads node:wasi, which prints an ExperimentalWarning in every worker; WASI stays off.
          execArgv: [...execArgv, '--no-warnings'],
          resourceLimits,
          name: 'wasm-ccm-plugin',
        }),
    );
    this.#worker = worker;
    worker.on('message', (message: unknown) => this.#onMessage(message));
    worker.on('error', (err: unknown) => {
      this.#errorMessage = describeWorkerError(err);
    });
    worker.on('exit', (code: number) => this.#onExit(code));
  }

  /** Reserves a slot for `events` at once (so that concurrent placements see it taken); returns its id. */
  reserve(events: SlotEvents): number {
    if (this.free <= 0) throw new Error('no free slot in this plugin worker');
    const slot = nextSlot++;
    this.#slots.set(slot, events);
    return slot;
  }

  /** Instantiates the module in `slot`, serving calls on `channel`, logging into `logs`; rejects with SlotOpenError. */
  async open(
    slot: number,
    { channel, logs }: SlotBuffers,
    config: Record<string, string>,
    timeoutMs: number,
  ): Promise<void> {
    await this.#spawned;
    const worker = this.#worker;
    if (worker === null || this.#exitReason !== null) {
      throw new SlotOpenError(`the plugin instance failed to start: ${this.#exitReason ?? 'no worker'}`);
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#opening.delete(slot);
        // A worker that cannot instantiate in time is likely held by a call that does not yield: stop it.
        void this.terminate({ cause: 'crash', reason: 'an instance did not start in time' });
        reject(new SlotOpenError(`the plugin instance did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#opening.set(slot, {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      worker.postMessage({ type: 'open', slot, channel: channel.buffer, logs: logs.buffer, config });
    });
  }

  /** Frees `slot`'s place for a new slot now, ahead of its close(). */
  retire(slot: number): void {
    if (this.#slots.has(slot)) this.#retiring.add(slot);
  }

  /**
   * Closes a slot whose instance is out of service. The worker is terminated with its last slot: then resolves as
   * terminate() does; null while other slots keep it.
   */
  close(slot: number): Promise<TerminationResult> | null {
    this.#retiring.delete(slot);
    if (!this.#slots.delete(slot)) return null;
    this.#opening.delete(slot);
    this.#worker?.postMessage({ type: 'close', slot });
    if (this.#slots.size > 0) return null;
    return this.terminate({ cause: 'crash', reason: 'its last instance closed' });
  }

  /**
   * Stops the thread and every slot in it. The first cause given is what the other slots' owners are told. Resolves
   * 'exited' or 'stuck' (worker-lifecycle.ts).
   */
  terminate(why: TerminationCause): Promise<TerminationResult> {
    this.#terminatedFor ??= why;
    // Nothing new may reach a worker on its way out: its other instances are out of service from now on.
    for (const events of this.#slots.values()) events.onWorkerStopping(this.#terminatedFor);
    const worker = this.#worker;
    if (worker === null) {
      // Not created yet: it never will be (spawn refuses), and its slots are told now.
      this.#exitReason ??= `stopped before it started: ${why.reason}`;
      this.#notifySlots();
      return Promise.resolve('exited');
    }
    this.#termination ??= terminateAfterStarts(worker);
    return this.#termination;
  }

  #onMessage(message: unknown): void {
    if (!isWorkerMessage(message)) return;
    if (message.type === 'log') {
      this.#slots.get(message.slot)?.onLog(message);
      return;
    }
    const pending = this.#opening.get(message.slot);
    if (pending === undefined) return;
    this.#opening.delete(message.slot);
    if (message.type === 'ready') pending.resolve();
    else pending.reject(new SlotOpenError(`the plugin instance failed to start: ${message.error}`));
  }

  #onExit(code: number): void {
    this.#exitReason = this.#errorMessage ?? `worker exited with code ${code}`;
    this.#notifySlots();
  }

  #notifySlots(): void {
    const reason = this.#exitReason ?? 'exited';
    for (const pending of this.#opening.values()) {
      pending.reject(new SlotOpenError(`the plugin instance failed to start: ${reason}`));
    }
    this.#opening.clear();
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    this.#retiring.clear();
    for (const events of slots) events.onWorkerExit(reason);
  }
}

/** The workers of one plugin's instances: places each new instance in a worker with a free slot, or a new worker. */
export class PluginWorkerGroup {
  readonly #data: WorkerStartData;
  readonly #resourceLimits: WorkerResourceLimits;
  readonly #capacity: number;
  readonly #workers = new Set<PluginWorker>();

  constructor(data: WorkerStartData, resourceLimits: WorkerResourceLimits, capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`instances per worker: want >= 1, got ${capacity}`);
    // Guest calls suspend on host functions (worker/guest-host-functions.ts): without JSPI no instance could start.
    if (typeof WebAssembly.Suspending !== 'function' || typeof WebAssembly.promising !== 'function') {
      throw new Error(`Node.js ${process.version} lacks WebAssembly JSPI (WebAssembly.Suspending), which plugins need`);
    }
    this.#data = data;
    this.#resourceLimits = resourceLimits;
    this.#capacity = capacity;
  }

  /** What every instance of these workers is limited to. */
  get limits(): WorkerLimits {
    return this.#data.limits;
  }

  /**
   * Opens a slot for `events` on `buffers`: in a worker with room, else in a new one (started once the terminations
   * under way have ended, worker-lifecycle.ts). Resolves with the worker and the slot; rejects with SlotOpenError.
   */
  async open(
    buffers: SlotBuffers,
    config: Record<string, string>,
    events: SlotEvents,
    timeoutMs: number,
  ): Promise<{ worker: PluginWorker; slot: number }> {
    for (const worker of this.#workers) {
      if (!worker.alive) this.#workers.delete(worker);
    }
    const existing = [...this.#workers].find((w) => w.free > 0);
    if (existing !== undefined) {
      const slot = existing.reserve(events);
      await this.#opened(existing, slot, () => existing.open(slot, buffers, config, timeoutMs));
      return { worker: existing, slot };
    }
    const worker = new PluginWorker(this.#capacity);
    const slot = worker.reserve(events);
    this.#workers.add(worker);
    await this.#opened(worker, slot, () =>
      startAfterTerminations(async () => {
        worker.spawn(this.#data, this.#resourceLimits);
        await worker.open(slot, buffers, config, timeoutMs);
      }),
    );
    return { worker, slot };
  }

  async #opened(worker: PluginWorker, slot: number, open: () => Promise<void>): Promise<void> {
    try {
      await open();
    } catch (err) {
      void worker.close(slot);
      if (worker.free === 0 && !worker.alive) this.#workers.delete(worker);
      throw err instanceof SlotOpenError ? err : new SlotOpenError(errorMessage(err));
    }
  }
}

// V8 heap flags of the main process (--max-semi-space-size, say, and the image's --heap-growing-percent) are refused
// by new Worker(); a worker's heap is sized by resourceLimits instead (a V8 flag given to the process applies to its
// workers' isolates anyway). Everything else (--cpu-prof, --inspect...) is passed on, except what Node turns out to
// refuse as well (startWorker).
const WORKER_REFUSED_FLAG =
  /^--(max|min)-(semi|old)-space-size|^--max-heap-size|^--semi-space-growth-factor|^--heap-growing-percent/;
const refusedByNode = new Set<string>();
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  return execArgv.filter((arg) => !WORKER_REFUSED_FLAG.test(arg.replaceAll('_', '-')) && !refusedByNode.has(arg));
}

/**
 * Creates a worker with the main process's flags (workerExecArgv). Node refuses V8 flags in a worker's execArgv
 * (--expose-gc, --perf-basic-prof: they apply to the whole process anyway) with ERR_WORKER_INVALID_EXEC_ARGV, which
 * names them: they are dropped, remembered for later workers, and the worker is created without them. A CCM started
 * with such a flag (to profile it, say) would otherwise fail to load any plugin.
 */
export function startWorker(create: (execArgv: string[]) => Worker, execArgv?: readonly string[]): Worker {
  const argv = workerExecArgv(execArgv);
  try {
    return create(argv);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    const named = /flags: (.*)$/.exec(errorMessage(err))?.[1]?.split(', ') ?? [];
    // Should the message not name any of ours, none of them is passed on.
    const refused = argv.some((arg) => named.includes(arg)) ? named : argv;
    for (const flag of refused) refusedByNode.add(flag);
    return create(argv.filter((arg) => !refusedByNode.has(arg)));
  }
}

function describeWorkerError(err: unknown): string {
  if (!(err instanceof Error)) return errorMessage(err);
  const code = (err as { code?: unknown }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return `the worker ran out of heap (resourceLimits): ${err.message}`;
  return `${err.name}: ${err.message}`;
}
