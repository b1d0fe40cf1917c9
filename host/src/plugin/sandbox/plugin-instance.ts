// The main thread's handle on one plugin instance: a slot of a worker thread running the module (plugin-worker.ts),
// and the channel calls go through. One call at a time (an Extism instance is not reentrant); the pool provides
// concurrency.
import { CallOutcome, Channel, ChannelState, HostRequestKind } from './channel.ts';
import { errorFrame } from '../broker/http-frame.ts';
import type { LogMessage } from './worker/worker-protocol.ts';
import { errorMessage } from '../../util/error-message.ts';
import { InstanceCallError, InstanceStartError } from './instance-errors.ts';
import { configureWasmEngine } from '../module/engine-flags.ts';
import { STUCK_AFTER_MS, type TerminationResult } from './worker-lifecycle.ts';
import { LOG_RECORD_OVERHEAD, LogBuffer } from './log-buffer.ts';
import type { PluginWorker, PluginWorkerGroup, TerminationCause } from './plugin-worker.ts';

/**
 * Serves a plugin's HTTP requests on the main thread (broker/http-broker.ts); `call` aborts at the deadline. Both HTTP
 * imports arrive as frames: the worker frames a ccm_http request itself (broker/http-json.ts).
 */
export interface HostHttp {
  /** Request frame in, answer frame out (broker/http-frame.ts). */
  handleBytes(request: Uint8Array, call: AbortSignal): Promise<Uint8Array>;
}

export interface InstanceOptions {
  /** The workers to place the instance in: the plugin's (its module, limits and V8 heap limits). */
  workers: PluginWorkerGroup;
  maxInputBytes: number;
  config: Record<string, string>;
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

// Room in the log buffer besides a call's budget: the runtime's note of the records it dropped.
const LOG_NOTE_BYTES = 512;

export class PluginInstance {
  readonly id = nextInstanceId++;
  readonly #channel: Channel;
  readonly #logs: LogBuffer;
  readonly #options: InstanceOptions;
  #worker: PluginWorker | null = null;
  #slot = 0;
  #busy = false;
  /** The export of the call under way (or the last one): what its log records are tagged with. */
  #callExport = '';
  #exitReason: string | null = null;
  #exitCause: ExitCause = 'crash';
  #exitReported = false;
  /** The call that ran past its deadline was suspended on the host: its slot can be closed alone. */
  #suspendedAtDeadline = false;

  private constructor(channel: Channel, logs: LogBuffer, options: InstanceOptions) {
    this.#channel = channel;
    this.#logs = logs;
    this.#options = options;
  }

  static async start(options: InstanceOptions): Promise<PluginInstance> {
    configureWasmEngine();
    const payloadMax = Math.max(
      options.maxInputBytes + 1024,
      options.workers.limits.maxOutputBytes,
      options.workers.limits.maxHttpRequestBytes,
    );
    // Limits below the usual start size give a smaller channel: a growable buffer cannot start above its maximum.
    const channel = Channel.create(Math.min(64 * 1024, payloadMax), payloadMax);
    // A call's records fit whole: the buffer is emptied at every hand-over, and a call logs within its budget.
    const { maxLogBytesPerCall, maxLogRecordsPerCall } = options.workers.limits;
    const logs = LogBuffer.create(
      maxLogBytesPerCall + (maxLogRecordsPerCall + 1) * LOG_RECORD_OVERHEAD + LOG_NOTE_BYTES,
    );
    const instance = new PluginInstance(channel, logs, options);
    const events = {
      onLog: (message: LogMessage) => options.onLog(message),
      onWorkerStopping: (why: TerminationCause) =>
        instance.#markExited(why.cause, `its worker was stopped: ${why.reason}`),
      onWorkerExit: (reason: string) => instance.#onWorkerExit(reason),
    };
    try {
      const placed = await options.workers.open({ channel, logs }, options.config, events, options.startTimeoutMs);
      instance.#worker = placed.worker;
      instance.#slot = placed.slot;
    } catch (err) {
      throw new InstanceStartError(errorMessage(err));
    }
    return instance;
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

  /**
   * Takes the instance out of service and stops it: a call that ran past its deadline may still be running, so its
   * whole worker is terminated (with the other instances in it); otherwise only its slot is closed. Safe to call more
   * than once; the first cause given is the one reported.
   */
  async terminate(cause: ExitCause, reason: string): Promise<void> {
    this.#markExited(cause, reason);
    await this.#stop();
  }

  // Nothing waits for a worker that does not stop: the stuck one is reported and left to exit when it can.
  async #stop(): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    let ended: Promise<TerminationResult> | null;
    if (this.#exitCause === 'timeout' && !this.#suspendedAtDeadline) {
      ended = worker.terminate({ cause: 'timeout', reason: `instance ${this.id}: ${this.#exitReason ?? 'stopped'}` });
    } else {
      ended = worker.close(this.#slot);
      this.#reportExit(this.#exitReason ?? 'closed');
    }
    if (ended !== null && (await ended) === 'stuck') {
      this.#options.onStuck?.(this, `still running ${STUCK_AFTER_MS} ms after terminate() (${this.#exitReason})`);
    }
  }

  // An instance lost with a neighbour was marked with the neighbour's cause when the worker was told to stop
  // (onWorkerStopping); one whose worker died unasked is a crash.
  #onWorkerExit(reason: string): void {
    // Nothing writes to the log buffer any more: what a call wrote before its worker stopped is read now.
    this.#forwardLogs();
    this.#markExited('crash', reason);
    this.#reportExit(this.#exitReason ?? reason);
  }

  #reportExit(reason: string): void {
    if (this.#exitReported) return;
    this.#exitReported = true;
    this.#options.onExit(this, this.#exitCause, reason);
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
    this.#callExport = exportName;
    channel.publish(ChannelState.call);
    // One timer per call ends it at the deadline: it aborts the host request under way and wakes the wait below.
    // Atomics.waitAsync's own timeout would leave a timer of the platform behind that fires at the deadline even when
    // the wait ended long before: a wake-up of the main thread per wait, seconds after its call.
    const call = new AbortController();
    const deadlineTimer = setTimeout(
      () => {
        call.abort();
        channel.wake();
      },
      Math.max(0, deadline - Date.now()),
    );
    // The timer may run a moment before the clock reaches the deadline: either one ends the call (and a guest
    // suspended on the host is then never resumed, so its slot is closed alone).
    const pastDeadline = (): boolean => call.signal.aborted || Date.now() >= deadline;
    try {
      for (;;) {
        const state = channel.state;
        if (state === ChannelState.done) {
          this.#forwardLogs();
          return this.#finish(exportName);
        }
        if (state === ChannelState.dead) {
          throw new InstanceCallError('crash', `the plugin's worker died during ${exportName}: ${this.#exitReason}`);
        }
        if (state === ChannelState.hostRequest) {
          this.#forwardLogs();
          if (!(await this.#serveHostRequest(call.signal, pastDeadline))) break;
        } else if (!call.signal.aborted) {
          await channel.waitChange(state);
        }
        if (pastDeadline() && channel.state !== ChannelState.done) break;
      }
    } finally {
      clearTimeout(deadlineTimer);
    }
    // The call fails now, at its deadline. A guest suspended on the host (HTTP, a pause) is never resumed once the
    // state says `dead`: its slot is closed alone. Otherwise it may be running, and the worker is stopped in the
    // background. Stopping can take long: V8 only acts on a termination request at certain points of Wasm code, and
    // not during a storm of GCs (see worker/worker-heap.ts), and nothing here may wait for it. The instance is out of
    // service from this line on, so the pool starts its replacement at once.
    this.#suspendedAtDeadline =
      channel.swap(ChannelState.hostRequest, ChannelState.dead) ||
      channel.swap(ChannelState.sleeping, ChannelState.dead);
    // A guest that is never resumed writes no more records; one that may be running is read when its worker is gone.
    if (this.#suspendedAtDeadline) this.#forwardLogs();
    this.#markExited('timeout', `${exportName} ran past its deadline`);
    void this.#stop();
    throw new InstanceCallError(
      'timeout',
      `${exportName} did not finish within ${timeoutMs} ms; its instance is being terminated`,
    );
  }

  /**
   * Answers the worker's host request; false when the call's deadline passed meanwhile (the call is over). This
   * instance owns the deadline: `signal` aborts the request then, and the call ends as a timeout, whatever the
   * request's own outcome.
   */
  async #serveHostRequest(signal: AbortSignal, pastDeadline: () => boolean): Promise<boolean> {
    const channel = this.#channel;
    const request = channel.copyOut(0, channel.length);
    const kind = channel.kind;
    let answer: Uint8Array;
    try {
      answer =
        kind === HostRequestKind.httpBytes
          ? await this.#options.http.handleBytes(request, signal)
          : errorFrame('Network', `unknown host request ${kind}`);
    } catch (err) {
      // The worker is blocked until it gets an answer: a failing handler must still give it one.
      answer = errorFrame('Network', `the host failed to make the request: ${errorMessage(err)}`);
    }
    if (pastDeadline()) return false;
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

  // Takes the instance out of service now but closes its slot a moment later: its place in the worker is free at once,
  // so the replacement may join that worker rather than start one (a worker whose last slot closes is terminated).
  #retire(cause: ExitCause, reason: string): void {
    this.#markExited(cause, reason);
    // Its slot no longer counts as taken: the replacement may join the same worker meanwhile.
    this.#worker?.retire(this.#slot);
    setTimeout(() => void this.#stop(), RETIRE_DELAY_MS).unref();
  }

  // The records the call wrote since the last hand-over (log-buffer.ts), as the worker's log messages.
  #forwardLogs(): void {
    for (const entry of this.#logs.take()) {
      this.#options.onLog({ type: 'log', slot: this.#slot, exportName: this.#callExport, ...entry });
    }
  }

  #markExited(cause: ExitCause, reason: string): void {
    if (this.#exitReason !== null) return;
    this.#exitReason = reason;
    this.#exitCause = cause;
    // Wakes this thread's own pending waitAsync, if a call is in flight. A finished call's outcome is kept. A guest
    // suspended on the host is never resumed once the state says `dead`: what its call logged is read now. One that
    // may be running is read when its worker is gone (a slot closed alone while computing loses what it logs).
    const channel = this.#channel;
    if (
      channel.swap(ChannelState.hostRequest, ChannelState.dead) ||
      channel.swap(ChannelState.sleeping, ChannelState.dead)
    ) {
      this.#forwardLogs();
    } else if (channel.state !== ChannelState.done) {
      channel.publish(ChannelState.dead);
    }
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
