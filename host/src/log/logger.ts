// A minimal structured logger: one record per line, with fields carried by child loggers. Kept tiny on purpose: the
// controllers and the plugin runtime only need levels, a message and flat fields. The CCM process writes klog's
// shapes (klog.ts); createJsonLineLogger's plain JSON lines serve tools and tests that read records back.
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { callerOf } from './caller.ts';
import type { LogFields, LogLevel } from './fields.ts';
import { formatKlogJson, formatKlogText, type LogFormat, VERBOSITY } from './klog.ts';

export type { LogFields, LogLevel } from './fields.ts';

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every record (for example `{plugin: 'devcloud'}`). */
  child(fields: LogFields): Logger;
}

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLineLoggerOptions {
  /** Where lines go; defaults to standard output (stdoutLines). */
  write?: (line: string) => void;
  /** Records below this level are dropped. */
  level?: LogLevel;
  fields?: LogFields;
  now?: () => Date;
}

type Emit = (bound: LogFields, level: LogLevel, message: string, fields?: LogFields) => void;

/** A Logger whose records all go through `emit`, with the fields its child loggers bind. */
function boundLogger(emit: Emit, bound: LogFields): Logger {
  return {
    debug: (m, f) => emit(bound, 'debug', m, f),
    info: (m, f) => emit(bound, 'info', m, f),
    warn: (m, f) => emit(bound, 'warn', m, f),
    error: (m, f) => emit(bound, 'error', m, f),
    child: (fields) => boundLogger(emit, { ...bound, ...fields }),
  };
}

export function createJsonLineLogger(options: JsonLineLoggerOptions = {}): Logger {
  const write = options.write ?? stdoutLines();
  const minimum = LEVEL_ORDER[options.level ?? 'info'];
  const now = options.now ?? (() => new Date());
  const emit: Emit = (bound, level, message, fields) => {
    if (LEVEL_ORDER[level] < minimum) return;
    // time, level and msg come first and cannot be overwritten by fields.
    const record = { ...bound, ...fields, time: now().toISOString(), level, msg: message };
    write(`${safeStringify(record)}\n`);
  };
  return boundLogger(emit, options.fields ?? {});
}

export interface KlogLoggerOptions {
  format: LogFormat;
  /** klog's `-v`: debug records (verbosity 2) are written from 2 on. */
  verbosity: number;
  /** Where records go; default standard error, as component-base writes them (stdout with splitStream). */
  write?: (line: string) => void;
  /** --log-*-split-stream: error records go to standard error (or errorWrite), the rest to standard output. */
  splitStream?: boolean;
  errorWrite?: (line: string) => void;
  fields?: LogFields;
  now?: () => Date;
  /** Where a record was made, for the header; the default looks up the call site (caller.ts). */
  caller?: () => string;
}

// The logging code's own frames (this folder's files, named by path or by file URL) are passed over when looking for
// a record's caller.
const LOG_DIR_URL = new URL('.', import.meta.url).href;
const LOG_DIR_PATH = fileURLToPath(LOG_DIR_URL);
const siteOutsideLog = (): string => callerOf((file) => file.startsWith(LOG_DIR_URL) || file.startsWith(LOG_DIR_PATH));

/** The CCM's logger: klog's text or JSON records (klog.ts), filtered by verbosity as `-v` does. */
export function createKlogLogger(options: KlogLoggerOptions): Logger {
  const write = options.write ?? streamLines(options.splitStream ? 'stdout' : 'stderr');
  const writeError = options.splitStream ? (options.errorWrite ?? streamLines('stderr')) : write;
  const now = options.now ?? (() => new Date());
  const caller = options.caller ?? siteOutsideLog;
  const format = options.format === 'json' ? formatKlogJson : formatKlogText;
  const pid = process.pid;
  const emit: Emit = (bound, level, message, fields) => {
    if (level !== 'error' && VERBOSITY[level] > options.verbosity) return;
    const all = fields ? { ...bound, ...fields } : bound;
    const line = format({ level, message, fields: all, now: now(), caller: caller(), pid });
    if (level === 'error') writeError(line);
    else write(line);
  };
  return boundLogger(emit, options.fields ?? {});
}

/** A logger that drops everything (defaults in libraries; tests that do not look at logs). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};

const streamWriters = new Map<'stdout' | 'stderr', (line: string) => void>();

/**
 * A standard stream, with the lines of one turn of the event loop written together: a burst of node initializations
 * logs a line per node, and a write(2) per line cost more than making the line. Lines still pending when the process
 * exits are written synchronously then. One writer per stream and process.
 */
function streamLines(name: 'stdout' | 'stderr'): (line: string) => void {
  const existing = streamWriters.get(name);
  if (existing) return existing;
  const stream = process[name];
  let pending: string[] = [];
  const take = (): string => {
    const text = pending.join('');
    pending = [];
    return text;
  };
  process.once('exit', () => {
    if (pending.length > 0) writeSync(stream.fd, take());
  });
  const writer = (line: string): void => {
    // The first pending line schedules the write of all of them; unref'd, as the exit handler writes what is left.
    if (pending.push(line) === 1) setImmediate(() => pending.length > 0 && stream.write(take())).unref();
  };
  streamWriters.set(name, writer);
  return writer;
}

/** streamLines('stdout'): where the plain JSON lines go by default. */
export const stdoutLines = (): ((line: string) => void) => streamLines('stdout');

// A record must never make logging throw: Errors become their message, BigInts strings, cycles a marker. Records of
// primitives only, nearly all of them, need none of that.
function safeStringify(record: LogFields): string {
  for (const key in record) {
    const value = record[key];
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') return guardedStringify(record);
  }
  return JSON.stringify(record);
}

function guardedStringify(record: LogFields): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(record, (_key, value: unknown) => {
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[circular]';
      seen.add(value);
    }
    return value;
  });
}
