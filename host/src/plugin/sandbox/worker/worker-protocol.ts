// What the main thread hands a plugin worker at start, and the few messages the worker posts back. Calls do not use
// messages at all (see sandbox/channel.ts); messages carry readiness and logs only (a worker that fails to start
// throws, which reaches the main thread as the Worker's 'error' event).

export interface WorkerLimits {
  /** Host-side bytes the guest may take through the kernel's `alloc` within one call. */
  kernelMemoryBytes: number;
  /** Largest output a call may set. */
  maxOutputBytes: number;
  /** Largest ccm_http request a plugin may send. */
  maxHttpRequestBytes: number;
  /** Log records (ccm_log and Extism's log_*) forwarded per call; the rest are counted and dropped. */
  maxLogRecordsPerCall: number;
  /** Largest log record forwarded, in bytes. */
  maxLogRecordBytes: number;
  /** Bytes of log records forwarded per call, as the host will write them (JSON-escaped). */
  maxLogBytesPerCall: number;
  /** The linear memory's maximum after capping, for naming out-of-memory traps. */
  memoryCapBytes: number;
}

export interface WorkerStartData {
  module: WebAssembly.Module;
  channel: SharedArrayBuffer;
  /** Extism config (config_get): only values the operator explicitly exposed to the plugin. */
  config: Record<string, string>;
  limits: WorkerLimits;
}

export interface ReadyMessage {
  type: 'ready';
}

/** A log record as the plugin wrote it; the main thread validates and tags it. */
export interface LogMessage {
  type: 'log';
  /** The export being served, '' outside a call. */
  exportName: string;
  /** 'ccm_log': `text` is a LogRecord JSON document. 'kernel': Extism's log_* with `level`. 'runtime': ours. */
  source: 'ccm_log' | 'kernel' | 'runtime';
  level: 'debug' | 'info' | 'warn' | 'error';
  text: string;
}

export type WorkerMessage = ReadyMessage | LogMessage;

export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'ready' || type === 'log';
}
