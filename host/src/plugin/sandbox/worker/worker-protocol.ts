// What the main thread hands a plugin worker at start, and the few messages the two exchange. Calls do not use
// messages at all (see sandbox/channel.ts), nor do the log records written during calls (log-buffer.ts); messages open
// and close instances (slots) and carry readiness and the log records written outside calls.

import type { LogLevel, LogSource } from '../log-buffer.ts';

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

/** What every instance of the worker is made of. */
export interface WorkerStartData {
  module: WebAssembly.Module;
  limits: WorkerLimits;
}

/** Main thread to worker: instantiate the module once more, serving calls on `channel`. */
export interface OpenSlotMessage {
  type: 'open';
  slot: number;
  channel: SharedArrayBuffer;
  /** The log records the instance writes during calls (log-buffer.ts). */
  logs: SharedArrayBuffer;
  /** Extism config (config_get): only values the operator explicitly exposed to the plugin, as of this instance. */
  config: Record<string, string>;
}

/** Main thread to worker: the slot serves no more calls (its instance is out of service). */
export interface CloseSlotMessage {
  type: 'close';
  slot: number;
}

export type HostMessage = OpenSlotMessage | CloseSlotMessage;

export interface ReadyMessage {
  type: 'ready';
  slot: number;
}

/** The slot could not be opened: instantiating the module or its start function threw. */
export interface FailedMessage {
  type: 'failed';
  slot: number;
  /** What was thrown, as "Name: message". */
  error: string;
}

/**
 * A log record as the plugin wrote it; the main thread validates and tags it. Records written during a call travel in
 * the instance's log buffer (log-buffer.ts) instead; the main thread makes this message of them.
 */
export interface LogMessage {
  type: 'log';
  slot: number;
  /** The export being served, '' outside a call. */
  exportName: string;
  /** 'ccm_log': `text` is a LogRecord JSON document. 'kernel': Extism's log_* with `level`. 'runtime': ours. */
  source: LogSource;
  level: LogLevel;
  text: string;
}

export type WorkerMessage = ReadyMessage | FailedMessage | LogMessage;

export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { type, slot } = value as { type?: unknown; slot?: unknown };
  return (type === 'ready' || type === 'failed' || type === 'log') && typeof slot === 'number';
}

export function isHostMessage(value: unknown): value is HostMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { type, slot } = value as { type?: unknown; slot?: unknown };
  return (type === 'open' || type === 'close') && typeof slot === 'number';
}
