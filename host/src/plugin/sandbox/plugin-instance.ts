// The main thread's handle on one plugin instance: a worker thread running the module, and the channel calls go
// through. One call at a time (an Extism instance is not reentrant); the pool provides concurrency.
import { Worker } from 'node:worker_threads';
import { CallOutcome, Channel, ChannelState, HostRequestKind } from './channel.ts';
import { errorFrame } from '../broker/http-frame.ts';
import type { LogMessage, WorkerLimits, WorkerStartData } from './worker/worker-protocol.ts';
import type { WorkerResourceLimits } from './worker/worker-heap.ts';
import { isWorkerMessage } from './worker/worker-protocol.ts';
import { errorMessage } from '../../util/error-message.ts';
import { InstanceCallError, InstanceStartError } from './instance-errors.ts';
import { configureWasmEngine } from '../module/engine-flags.ts';
import { STUCK_AFTER_MS, startAfterTerminations, terminateAfterStarts } from './worker-lifecycle.ts';

// Same extension as this file: .ts when Node runs the sources, .js when they were compiled to dist/.
const WORKER_URL = new URL(`./worker/worker-entry${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url);

/**
 * Serves a plugin's HTTP requests on the main thread (broker/http-broker.ts); `call` aborts at the deadline. Both HTTP
 * imports arrive as frames: the worker frames a ccm_http request itself (broker/http-json.ts).
 */
export interface HostHttp {
  /** Request frame in, answer frame out (broker/http-frame.ts). */
  handleBytes(request: Uint8Array, call: AbortSignal): Promise<Uint8Array>;
}

export interface InstanceOptions {
  module: WebAssembly.Module;
  limits: WorkerLimits;
  maxInputBytes: number;
  config: Record<string, string>;
  /** V8 heap limits of the worker (its own JS, not the guest's linear memory). */
  resourceLimits: WorkerResourceLimits;
  startTimeoutMs: number;
  http: HostHttp;
  onLog: (message: LogMessage) => void;
  /** Called once when the worker is gone, whatever the reason. */
  onExit: (instance: PluginInstance, cause: ExitCause, detail: string) => void;
  /** Called when the worker is still running STUCK_AFTER_MS after it was told to terminate (worker-lifecycle.ts). */
  onStuck?: (instance: PluginInstance, detail: string) => void;
}

/** Why an instance ended (the `reason` label of the restarts metric). */
export type ExitCause = 'timeout' | 'trap' | 'limit' | 'crash' | 'recycle' | 'closed';

const RETIRE_DELAY_MS = 20;
let nextInstanceId = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class PluginInstance {
  readonly id = nextInstanceId++;
  readonly #worker: Worker;
  readonly #channel: Channel;
  readonly #options: InstanceOptions;
  #busy = false;
  #exitReason: string | null = null;
  #exitCause: ExitCause = 'crash';
  #errorMessage: string | null = null;

  private constructor(worker: Worker, channel: Channel, options: InstanceOptions) {
    this.#worker = worker;
    this.#channel = channel;
    this.#options = options;
  }

  static async start(options: InstanceOptions): Promise<PluginInstance> {
    configureWasmEngine();
    const payloadMax = Math.max(
      options.maxInputBytes + 1024,
      options.limits.maxOutputBytes,
      options.limits.maxHttpRequestBytes,
    );
    // Limits below the usual start size give a smaller channel: a growable buffer cannot start above its maximum.
    const channel = Channel.create(Math.min(64 * 1024, payloadMax), payloadMax);
    const data: WorkerStartData = {
      module: options.module,
      channel: channel.buffer,
      config: options.config,
      limits: options.limits,
    };
    return startAfterTerminations(async () => {
      const worker = startWorker(
        (execArgv) =>
          new Worker(WORKER_URL, {
            workerData: data,
            env: {},
            argv: [],
            // Importing js-sdk loads node:wasi, which prints an ExperimentalWarning in every worker; WASI stays off.
            execArgv: [...execArgv, '--no-warnings'],
            resourceLimits: options.resourceLimits,
            name: 'wasm-ccm-plugin',
          }),
      );
      const instance = new PluginInstance(worker, channel, options);
      await instance.#awaitReady();
      return instance;
    });
  }

  get alive(): boolean {
    return this.#exitReason === null;
  }

  get busy(): boolean {
    return this.#busy;
  }

  /**
   * Calls an export with `input` (bytes, or text that is written into the channel as UTF-8 without an intermediate
   * copy); resolves with its output bytes. Rejects with InstanceCallError.
   */
  async call(exportName: string, input: Uint8Array | string, timeoutMs: number): Promise<Uint8Array> {
    if (!this.alive) throw new InstanceCallError('crash', `the plugin instance is gone (${this.#exitReason})`);
    if (this.#busy) throw new Error(`plugin instance ${this.id} is already serving a call`);
    // Text takes at least a byte per UTF-16 unit: longer text is too large whatever it holds. Shorter text is checked
    // once it is written (#writeRequest).
    const atLeast = typeof input === 'string' ? input.length : input.byteLength;
    if (atLeast > this.#options.maxInputBytes) {
      const bytes = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
      throw new InstanceCallError('inputTooLarge', this.#tooLarge(bytes));
    }
    this.#busy = true;
    try {
      return await this.#run(exportName, input, Date.now() + timeoutMs, timeoutMs);
    } finally {
      this.#busy = false;
    }
  }

  /** Stops the worker. Safe to call more than once; the first cause given is the one reported. */
  async terminate(cause: ExitCause, reason: string): Promise<void> {
    this.#markExited(cause, reason);
    await this.#stop();
  }

  // Nothing waits for a worker that does not stop: the stuck one is reported and left to exit when it can.
  async #stop(): Promise<void> {
    if ((await terminateAfterStarts(this.#worker)) === 'stuck') {
      this.#options.onStuck?.(this, `still running ${STUCK_AFTER_MS} ms after terminate() (${this.#exitReason})`);
    }
  }

  #tooLarge(bytes: number): string {
    return `input of ${bytes} bytes is above the limit of ${this.#options.maxInputBytes}`;
  }

  /** Puts the export's name and the input into the channel; returns the input's size in bytes. */
  #writeRequest(name: Uint8Array, input: Uint8Array | string): number {
    const channel = this.#channel;
    let bytes: number;
    if (typeof input === 'string') {
      bytes = channel.writeText(name.byteLength, input);
      if (bytes < 0 || bytes > this.#options.maxInputBytes) {
        const size = bytes < 0 ? Buffer.byteLength(input, 'utf8') : bytes;
        throw new InstanceCallError(
          'inputTooLarge',
          size > this.#options.maxInputBytes ? this.#tooLarge(size) : `input of ${size} bytes does not fit the channel`,
        );
      }
    } else {
      bytes = input.byteLength;
      if (!channel.reserve(name.byteLength + bytes)) {
        throw new InstanceCallError('inputTooLarge', `input of ${bytes} bytes does not fit the channel`);
      }
      channel.payload.set(input, name.byteLength);
    }
    channel.payload.set(name, 0);
    return bytes;
  }

  async #run(exportName: string, input: Uint8Array | string, deadline: number, timeoutMs: number): Promise<Uint8Array> {
    const channel = this.#channel;
    const name = encodedName(exportName);
    channel.length = this.#writeRequest(name, input);
    channel.aux = name.byteLength;
    channel.publish(ChannelState.call);
    for (;;) {
      const state = channel.state;
      if (state === ChannelState.done) return this.#finish(exportName);
      if (state === ChannelState.dead) {
        throw new InstanceCallError('crash', `the plugin's worker died during ${exportName}: ${this.#exitReason}`);
      }
      if (state === ChannelState.hostRequest) {
        if (!(await this.#serveHostRequest(deadline))) break;
      } else if (!(await channel.waitWhileAsync(state, deadline - Date.now()))) {
        break;
      }
      if (Date.now() >= deadline && channel.state !== ChannelState.done) break;
    }
    // The call fails now, at its deadline; the worker is stopped in the background. Stopping can take long: V8 only
    // acts on a termination request at certain points of Wasm code, and not during a storm of GCs (see
    // worker/worker-heap.ts), and nothing here may wait for it. The instance is out of service from this line on, so
    // the pool starts its replacement at once.
    this.#markExited('timeout', `${exportName} ran past its deadline`);
    void this.#stop();
    throw new InstanceCallError(
      'timeout',
      `${exportName} did not finish within ${timeoutMs} ms; its instance is being terminated`,
    );
  }

  /** Answers the worker's host request; false when the call's deadline passed meanwhile (the call is over). */
  async #serveHostRequest(deadline: number): Promise<boolean> {
    const channel = this.#channel;
    const request = channel.copyOut(0, channel.length);
    const kind = channel.kind;
    let answer: Uint8Array;
    // This instance owns the deadline: at the deadline the request is aborted and the call ends as a timeout,
    // whatever the request's own outcome.
    const call = new AbortController();
    const timer = setTimeout(() => call.abort(), Math.max(0, deadline - Date.now()));
    try {
      answer =
        kind === HostRequestKind.httpBytes
          ? await this.#options.http.handleBytes(request, call.signal)
          : errorFrame('Network', `unknown host request ${kind}`);
    } catch (err) {
      // The worker is blocked until it gets an answer: a failing handler must still give it one.
      answer = errorFrame('Network', `the host failed to make the request: ${errorMessage(err)}`);
    } finally {
      clearTimeout(timer);
    }
    if (call.signal.aborted || Date.now() >= deadline) return false;
    if (!this.alive) return true;
    if (!channel.reserve(answer.byteLength)) {
      answer = errorFrame('TooLarge', 'the answer does not fit the channel');
    }
    channel.payload.set(answer, 0);
    channel.length = answer.byteLength;
    channel.publish(ChannelState.hostReply);
    return true;
  }

  #finish(exportName: string): Uint8Array {
    const channel = this.#channel;
    const outcome = channel.kind;
    const bytes = channel.copyOut(0, channel.length);
    channel.set(ChannelState.idle);
    if (outcome === CallOutcome.output) return bytes;
    const text = decoder.decode(bytes);
    switch (outcome) {
      case CallOutcome.trap:
        this.#retire('trap', `trapped in ${exportName}: ${text}`);
        throw new InstanceCallError('trap', `the plugin trapped in ${exportName}: ${text}`);
      case CallOutcome.limit:
        this.#retire('limit', `went over a limit in ${exportName}: ${text}`);
        throw new InstanceCallError('limit', `${exportName}: ${text}`);
      case CallOutcome.nonZeroReturn:
        throw new InstanceCallError('nonZeroReturn', `${exportName} ${text}`);
      case CallOutcome.guestError:
        throw new InstanceCallError('guestError', `${exportName} set an Extism error: ${text}`);
      case CallOutcome.noOutput:
        throw new InstanceCallError('noOutput', `${exportName}: ${text}`);
      case CallOutcome.noSuchExport:
        throw new InstanceCallError('noSuchExport', text);
      default:
        throw new InstanceCallError('crash', `${exportName}: unknown outcome ${outcome}`);
    }
  }

  #awaitReady(): Promise<void> {
    const worker = this.#worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.terminate('crash', 'did not start in time');
        reject(new InstanceStartError(`the plugin instance did not start within ${this.#options.startTimeoutMs} ms`));
      }, this.#options.startTimeoutMs);
      const fail = (message: string): void => {
        clearTimeout(timer);
        reject(new InstanceStartError(message));
      };
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve();
        } else {
          this.#options.onLog(message);
        }
      });
      worker.on('error', (err: unknown) => {
        this.#errorMessage = describeWorkerError(err);
      });
      worker.on('exit', (code: number) => {
        this.#markExited('crash', this.#errorMessage ?? `worker exited with code ${code}`);
        const reason = this.#exitReason ?? 'exited';
        // After 'ready' this rejection is ignored; before it, it is the start-up failure.
        fail(`the plugin instance failed to start: ${reason}`);
        this.#options.onExit(this, this.#exitCause, reason);
      });
    });
  }

  // Takes the instance out of service now but terminates its worker a moment later: log records it posted just
  // before trapping (an AssemblyScript abort logs its reason) are still in flight and would be lost.
  #retire(cause: ExitCause, reason: string): void {
    this.#markExited(cause, reason);
    setTimeout(() => void this.#stop(), RETIRE_DELAY_MS).unref();
  }

  #markExited(cause: ExitCause, reason: string): void {
    if (this.#exitReason !== null) return;
    this.#exitReason = reason;
    this.#exitCause = cause;
    // Wakes this thread's own pending waitAsync, if a call is in flight. A finished call's outcome is kept.
    if (this.#channel.state !== ChannelState.done) this.#channel.publish(ChannelState.dead);
  }
}

// Export names are few and repeat on every call: encode each once.
const encodedNames = new Map<string, Uint8Array>();
function encodedName(exportName: string): Uint8Array {
  let bytes = encodedNames.get(exportName);
  if (bytes === undefined) {
    bytes = encoder.encode(exportName);
    if (encodedNames.size < 256) encodedNames.set(exportName, bytes);
  }
  return bytes;
}

// V8 heap sizing flags of the main process (--max-semi-space-size, say) are refused by new Worker(); a worker's heap
// is sized by resourceLimits instead. Everything else (--cpu-prof, --inspect...) is passed on, except what Node turns
// out to refuse as well (startWorker).
const WORKER_REFUSED_FLAG = /^--(max|min)-(semi|old)-space-size|^--max-heap-size|^--semi-space-growth-factor/;
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
