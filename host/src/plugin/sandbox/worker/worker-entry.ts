// Entry point of a plugin worker thread. It instantiates the module with Extism in foreground mode (synchronous host
// functions, no Extism worker of its own), then serves calls from the channel until the main thread terminates it.
// It holds no credentials and has no environment: the main thread starts it with an empty `env`, WASI is off and
// no paths or hosts are given to Extism.
import { parentPort, workerData } from 'node:worker_threads';
import createPlugin from '@extism/extism';
import { CallOutcome, Channel, ChannelState } from '../channel.ts';
import { canonicalAnswer } from '../canonical-answer.ts';
import { CCM_HOST_MODULE, EXTISM_KERNEL_MODULE } from '../../module/import-policy.ts';
import { GuestFaults } from './guest-faults.ts';
import { createHostFunctions } from './guest-host-functions.ts';
import { GuestKernel } from './guest-kernel.ts';
import { kernelExtras } from './kernel-extras.ts';
import { GuestRunner, publishOutcome } from './guest-runner.ts';
import type { LogMessage, WorkerMessage, WorkerStartData } from './worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('worker-entry.ts must run in a worker thread');
const post = (message: WorkerMessage): void => port.postMessage(message);

const start = workerData as WorkerStartData;
const channel = new Channel(start.channel);
const { limits } = start;
const decoder = new TextDecoder();

// Log records are forwarded up to a per-call budget of records and of bytes: a plugin logging in a loop must not
// flood the main thread or the host's log. Bytes are counted as the host will write them: it JSON-escapes a record's
// text, and 100 records of 16 KiB of NULs were 9.8 MB of log for one call.
let currentExport = '';
let logsThisCall = 0;
let logBytesThisCall = 0;
let logsDropped = 0;
function log(record: Omit<LogMessage, 'type' | 'exportName'>): void {
  if (logsThisCall >= limits.maxLogRecordsPerCall || record.text.length > limits.maxLogRecordBytes) {
    logsDropped++;
    return;
  }
  const bytes = writtenBytes(record);
  if (logBytesThisCall + bytes > limits.maxLogBytesPerCall) {
    logsDropped++;
    return;
  }
  logsThisCall++;
  logBytesThisCall += bytes;
  post({ type: 'log', exportName: currentExport, ...record });
}

// A ccm_log record is a JSON document already, its escapes written as they are; other text gets JSON-escaped.
function writtenBytes(record: Omit<LogMessage, 'type' | 'exportName'>): number {
  return Buffer.byteLength(record.source === 'ccm_log' ? record.text : JSON.stringify(record.text));
}

const kernelLog = (level: LogMessage['level']) => (text: unknown) =>
  log({ source: 'kernel', level, text: String(text) });
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
    config: start.config,
    maxLogRecordBytes: limits.maxLogRecordBytes,
    log: (level, text) => kernelLogger[level](text),
  }),
};
const plugin = await createPlugin(start.module, {
  useWasi: false,
  runInWorker: false,
  allowedHosts: [],
  allowedPaths: {},
  config: start.config,
  logger: kernelLogger as unknown as Console,
  functions: {
    [EXTISM_KERNEL_MODULE]: faults.guardAll(kernelFunctions),
    [CCM_HOST_MODULE]: faults.guardAll(
      createHostFunctions({
        channel,
        kernel,
        maxHttpRequestBytes: limits.maxHttpRequestBytes,
        maxLogRecordBytes: limits.maxLogRecordBytes,
        log,
      }),
    ),
  },
});
const instance = await plugin.getInstance();
const memory = instance.exports.memory;
kernel.attachMemory(memory instanceof WebAssembly.Memory ? memory : null);
// Extism only calls a reactor's _initialize when WASI is on; wasm-ccm plugins have no WASI, so do it here.
const initialize = instance.exports._initialize;
if (typeof initialize === 'function') (initialize as () => void)();
const runner = new GuestRunner(plugin, instance, { kernel, faults }, limits.memoryCapBytes);
post({ type: 'ready' });

// Calls mostly repeat the same few exports: reuse the decoded name when the bytes are the same as last time.
let lastNameBytes = new Uint8Array(0);
function exportNameAt(length: number): string {
  const bytes = channel.payload.subarray(0, length);
  if (length !== lastNameBytes.length || !bytes.every((b, i) => b === lastNameBytes[i])) {
    lastNameBytes = bytes.slice();
    currentExport = decoder.decode(lastNameBytes);
  }
  return currentExport;
}

// A call's input is copied out of the channel (ccm_http reuses the channel while the call runs) into a buffer kept
// across calls: a memmove into memory that is already there is an order of magnitude cheaper than slice() out of the
// shared buffer, and a fresh buffer adds its allocation (bench/plugin-runtime/plugin-ensure.ts makes such large calls). Inputs above
// RETAINED_INPUT_BYTES get a buffer of their own, so one huge call does not pin its size in the worker.
const RETAINED_INPUT_BYTES = 4 * 1024 * 1024;
let inputBuffer = new Uint8Array(0);
function takeInput(offset: number, length: number): Uint8Array {
  if (length > inputBuffer.length) {
    if (length > RETAINED_INPUT_BYTES) return channel.copyOut(offset, length);
    inputBuffer = new Uint8Array(Math.min(RETAINED_INPUT_BYTES, Math.max(length, inputBuffer.length * 2, 64 * 1024)));
  }
  channel.copyTo(inputBuffer, offset, length);
  return inputBuffer.subarray(0, length);
}

for (;;) {
  // Sleep until the main thread posts a call (the state may still read `done` from the previous one).
  for (let state = channel.state; state !== ChannelState.call; state = channel.state) {
    Atomics.wait(channel.header, 0, state);
  }
  const nameLength = channel.aux;
  const inputLength = channel.length;
  currentExport = exportNameAt(nameLength);
  const input = takeInput(nameLength, inputLength);
  logsThisCall = 0;
  logBytesThisCall = 0;
  logsDropped = 0;
  const result = runner.run(currentExport, input);
  // The main thread parses the answer's canonical form, never the plugin's own text (sandbox/canonical-answer.ts).
  if (result.outcome === CallOutcome.output) result.bytes = canonicalAnswer(currentExport, result.bytes);
  if (logsDropped > 0) {
    const text =
      `dropped ${logsDropped} log records over the per-call limits ` +
      `(${limits.maxLogRecordsPerCall} records, ${limits.maxLogBytesPerCall} bytes as written)`;
    logsThisCall = 0;
    logBytesThisCall = 0;
    log({ source: 'runtime', level: 'warn', text });
  }
  publishOutcome(channel, result);
  channel.publish(ChannelState.done);
  // After a trap or a limit (runner.poisoned) the main thread terminates this worker as soon as it reads the outcome;
  // the worker must not exit by itself first, or its exit could be taken for a crash of the call.
}
