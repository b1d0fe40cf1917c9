// One plugin instance inside a worker: the module instantiated with Extism in foreground mode (no Extism worker of its
// own), its kernel, its fault record and its channel, and the loop serving the calls the main thread posts there.
// A worker holds several slots (worker-entry.ts); each has its own linear memory, kernel blocks, variables and log
// budget, and a call of one slot that waits for the main thread (HTTP, a sleep) lets the others run.
import { isUtf8 } from 'node:buffer';
import createPlugin from '@extism/extism';
import { CallOutcome, Channel, ChannelState } from '../channel.ts';
import { canonicalAnswer } from '../canonical-answer.ts';
import { CCM_HOST_MODULE, EXTISM_KERNEL_MODULE } from '../../module/import-policy.ts';
import { GuestFaults } from './guest-faults.ts';
import {
  createHostFunctions,
  type GuestLogRecord,
  SUSPENDING_IMPORTS,
  suspendingImport,
} from './guest-host-functions.ts';
import { GuestKernel } from './guest-kernel.ts';
import { kernelExtras } from './kernel-extras.ts';
import { GuestRunner, publishOutcome } from './guest-runner.ts';
import { LogBuffer } from '../log-buffer.ts';
import type { LogMessage, WorkerLimits, WorkerMessage } from './worker-protocol.ts';
import { errorMessage } from '../../../util/error-message.ts';

export interface GuestSlotOptions {
  slot: number;
  module: WebAssembly.Module;
  channel: SharedArrayBuffer;
  logs: SharedArrayBuffer;
  config: Record<string, string>;
  limits: WorkerLimits;
  post: (message: WorkerMessage) => void;
}

// A call's input is copied out of the channel (ccm_http reuses the channel while the call runs) into a buffer kept
// across calls: a memmove into memory that is already there is an order of magnitude cheaper than slice() out of the
// shared buffer, and a fresh buffer adds its allocation (bench/plugin-runtime/plugin-ensure.ts makes such large calls).
// Inputs above RETAINED_INPUT_BYTES get a buffer of their own, so one huge call does not pin its size in the worker.
const RETAINED_INPUT_BYTES = 4 * 1024 * 1024;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class GuestSlot {
  readonly #options: GuestSlotOptions;
  readonly #channel: Channel;
  readonly #logs: LogBuffer;
  #runner: GuestRunner | null = null;
  #closed = false;
  #inCall = false;
  #currentExport = '';
  #logsThisCall = 0;
  #logBytesThisCall = 0;
  #logsDropped = 0;
  #lastNameBytes = new Uint8Array(0);
  #inputBuffer = new Uint8Array(0);

  private constructor(options: GuestSlotOptions) {
    this.#options = options;
    this.#channel = new Channel(options.channel);
    this.#logs = new LogBuffer(options.logs);
  }

  /** Instantiates the module in a new slot; rejects with what instantiating or the start function threw. */
  static async open(options: GuestSlotOptions): Promise<GuestSlot> {
    const slot = new GuestSlot(options);
    await slot.#instantiate();
    return slot;
  }

  /** Stops serving after the call under way, if any (the main thread no longer posts calls here). */
  close(): void {
    this.#closed = true;
    this.#channel.wake();
  }

  async #instantiate(): Promise<void> {
    const { limits, config, module } = this.#options;
    const kernelLog = (level: LogMessage['level']) => (text: unknown) =>
      this.#log({ source: 'kernel', level, text: String(text) });
    // Extism's log_* kernel functions write to this instead of the console.
    const kernelLogger = {
      debug: kernelLog('debug'),
      info: kernelLog('info'),
      warn: kernelLog('warn'),
      error: kernelLog('error'),
    };
    const kernel = new GuestKernel(limits.kernelMemoryBytes, limits.maxOutputBytes);
    // Every import the guest may call is ours and guarded: an error it raises fails the call even if the guest catches it.
    const faults = new GuestFaults();
    const kernelFunctions = {
      ...kernel.functions(),
      ...kernelExtras({
        kernel,
        config,
        maxLogRecordBytes: limits.maxLogRecordBytes,
        log: (level, text) => kernelLogger[level](text),
      }),
    };
    const hostFunctions = faults.guardAll(
      createHostFunctions({
        channel: this.#channel,
        kernel,
        maxHttpRequestBytes: limits.maxHttpRequestBytes,
        log: (record) => this.#log(record),
        inCall: () => this.#inCall,
      }),
    );
    for (const name of SUSPENDING_IMPORTS) {
      const fn = hostFunctions[name];
      if (fn !== undefined) hostFunctions[name] = suspendingImport(fn);
    }
    const plugin = await createPlugin(module, {
      useWasi: false,
      runInWorker: false,
      allowedHosts: [],
      allowedPaths: {},
      config,
      logger: kernelLogger as unknown as Console,
      functions: {
        [EXTISM_KERNEL_MODULE]: faults.guardAll(kernelFunctions),
        [CCM_HOST_MODULE]: hostFunctions,
      },
    });
    const instance = await plugin.getInstance();
    const memory = instance.exports.memory;
    kernel.attachMemory(memory instanceof WebAssembly.Memory ? memory : null);
    // Extism only calls a reactor's _initialize when WASI is on; wasm-ccm plugins have no WASI, so do it here.
    const initialize = instance.exports._initialize;
    if (typeof initialize === 'function') (initialize as () => void)();
    // An import's error the start function caught (ccm_http outside a call, say) still fails the start.
    const fault = faults.take();
    if (fault !== null) {
      throw new Error(`the module's start function called ${fault.importName}: ${fault.error?.message ?? 'failed'}`);
    }
    this.#runner = new GuestRunner(plugin, instance, { kernel, faults }, limits.memoryCapBytes);
  }

  /** Serves calls until the slot is closed. */
  async serve(): Promise<void> {
    const channel = this.#channel;
    const runner = this.#runner;
    if (runner === null) throw new Error('serve() before open()');
    for (;;) {
      if (this.#closed) return;
      // The state may still read `done` from the previous call until the main thread posts the next one.
      const state = channel.state;
      if (state === ChannelState.call) {
        await this.#serveCallSafely(runner);
        // After a trap or a limit (runner.poisoned) the main thread closes this slot as soon as it reads the outcome.
      } else {
        await channel.waitChange(state);
      }
    }
  }

  // Whatever fails around the guest's own code (copying the input, the answer's canonical form) fails this call as a
  // trap, which retires this instance only: an exception escaping here would end the worker and its other instances.
  async #serveCallSafely(runner: GuestRunner): Promise<void> {
    try {
      await this.#serveCall(runner);
    } catch (err) {
      const text = `the worker failed serving ${this.#currentExport}: ${errorMessage(err)}`;
      publishOutcome(this.#channel, { outcome: CallOutcome.trap, returnCode: 0, bytes: encoder.encode(text) });
      this.#channel.publish(ChannelState.done);
    } finally {
      this.#inCall = false;
    }
  }

  async #serveCall(runner: GuestRunner): Promise<void> {
    const channel = this.#channel;
    const nameLength = channel.aux;
    const inputLength = channel.length;
    this.#currentExport = this.#exportNameAt(nameLength);
    const input = this.#takeInput(nameLength, inputLength);
    this.#logsThisCall = 0;
    this.#logBytesThisCall = 0;
    this.#logsDropped = 0;
    this.#inCall = true;
    const result = await runner.run(this.#currentExport, input);
    // The main thread parses the answer's canonical form, never the plugin's own text (sandbox/canonical-answer.ts).
    if (result.outcome === CallOutcome.output) result.bytes = canonicalAnswer(this.#currentExport, result.bytes);
    if (this.#logsDropped > 0) {
      const { limits } = this.#options;
      const text =
        `dropped ${this.#logsDropped} log records over the per-call limits ` +
        `(${limits.maxLogRecordsPerCall} records, ${limits.maxLogBytesPerCall} bytes as written)`;
      this.#logsThisCall = 0;
      this.#logBytesThisCall = 0;
      this.#log({ source: 'runtime', level: 'warn', text });
    }
    this.#inCall = false;
    publishOutcome(channel, result);
    channel.publish(ChannelState.done);
  }

  // Log records are forwarded up to a per-call budget of records and of bytes: a plugin logging in a loop must not
  // flood the main thread or the host's log. Bytes are counted as the host will write them: it JSON-escapes a record's
  // text, and 100 records of 16 KiB of NULs were 9.8 MB of log for one call. During a call they go into the log buffer
  // (sized for a call's budget: the main thread empties it at every hand-over); outside one (the start function) they
  // are posted.
  #log(record: GuestLogRecord): void {
    const { limits } = this.#options;
    if (this.#logsThisCall >= limits.maxLogRecordsPerCall || record.text.length > limits.maxLogRecordBytes) {
      this.#logsDropped++;
      return;
    }
    const bytes = writtenBytes(record);
    if (this.#logBytesThisCall + bytes > limits.maxLogBytesPerCall) {
      this.#logsDropped++;
      return;
    }
    this.#logsThisCall++;
    this.#logBytesThisCall += bytes;
    const { source, level, text } = record;
    if (this.#inCall && this.#logs.append(source, level, text)) return;
    const message = typeof text === 'string' ? text : decoder.decode(text);
    this.#options.post({
      type: 'log',
      slot: this.#options.slot,
      exportName: this.#currentExport,
      source,
      level,
      text: message,
    });
  }

  // Calls mostly repeat the same few exports: reuse the decoded name when the bytes are the same as last time.
  #exportNameAt(length: number): string {
    const bytes = this.#channel.payload.subarray(0, length);
    const last = this.#lastNameBytes;
    if (length !== last.length || !bytes.every((b, i) => b === last[i])) {
      this.#lastNameBytes = bytes.slice();
      return decoder.decode(this.#lastNameBytes);
    }
    return this.#currentExport;
  }

  #takeInput(offset: number, length: number): Uint8Array {
    if (length > this.#inputBuffer.length) {
      if (length > RETAINED_INPUT_BYTES) return this.#channel.copyOut(offset, length);
      const size = Math.max(length, this.#inputBuffer.length * 2, 64 * 1024);
      this.#inputBuffer = new Uint8Array(Math.min(RETAINED_INPUT_BYTES, size));
    }
    this.#channel.copyTo(this.#inputBuffer, offset, length);
    return this.#inputBuffer.subarray(0, length);
  }
}

// A ccm_log record is a JSON document already, its escapes written as they are; other text gets JSON-escaped. Bytes
// that are not UTF-8 are counted as decoded: each invalid byte is written as U+FFFD, three bytes.
function writtenBytes({ source, text }: GuestLogRecord): number {
  if (typeof text !== 'string') return isUtf8(text) ? text.byteLength : Buffer.byteLength(decoder.decode(text));
  return Buffer.byteLength(source === 'ccm_log' ? text : JSON.stringify(text));
}
