// A minimal structured logger: one record per line, with fields carried by child loggers. Kept tiny on purpose: the
// controllers and the plugin runtime only need levels, klog's `V(n)`, a message and flat fields. The CCM process
// writes klog's shapes (klog.ts); createJsonLineLogger's plain JSON lines serve tools and tests that read records back.
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { callerOf } from './caller.ts';
import { wallClockMicros } from './clock.ts';
import type { LogFields, LogLevel } from './fields.ts';
import { formatKlogJson, formatKlogText, type LogFormat, VERBOSITY } from './klog.ts';
import { Verbosity } from './verbosity.ts';

export type { LogFields, LogLevel } from './fields.ts';
export { parseVerbosity, Verbosity } from './verbosity.ts';

/**
 * klog's `V(n)`: records written only while -v is n or more. A record whose fields cost something to make (a string
 * built, a list copied) is made inside `if (log.enabled)`, so a level that is off costs a property read.
 */
export interface VerboseLogger {
  /** Whether records of this verbosity are written now (-v can change while the process runs). */
  readonly enabled: boolean;
  /** klog's InfoS at this verbosity. */
  info(message: string, fields?: LogFields): void;
  /** klog's Info: the text as it is, unquoted in the text format, without any fields (the flag dump, `Version:`). */
  print(text: string): void;
}

export interface Logger {
  /** Verbosity 2: `v(2).info`. */
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The records of verbosity `n` (`v(0)` is info). */
  v(n: number): VerboseLogger;
  /** A logger that adds `fields` to every record (for example `{plugin: 'devcloud'}`). */
  child(fields: LogFields): Logger;
  /**
   * This logger for records all made from one line of code (and its children, which share that line): the line is
   * looked up at the first record and reused. Looking it up takes a stack capture, ~20 us of CPU in a busy CCM, which
   * a record made per Node or per Service pays every time otherwise. Absent: the logger has no lookup to save.
   */
  atOneSite?(): Logger;
}

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLineLoggerOptions {
  /** Where lines go; defaults to standard output (stdoutLines). */
  write?: (line: string) => void;
  /** Records below this level are dropped; V(n) records are debug records from n = 1 on. */
  level?: LogLevel;
  fields?: LogFields;
  now?: () => Date;
}

/** The line of code a logger's records are all made from (atOneSite), once looked up. */
interface Site {
  caller?: string;
}

/**
 * Where a logger's records go: `verbosity` is that of a V(n) record, `plain` a klog Info text, `site` the one line
 * of code the record's logger is used from.
 */
interface Sink {
  enabled(verbosity: number): boolean;
  emit(
    bound: LogFields,
    level: LogLevel,
    message: string,
    fields?: LogFields,
    verbosity?: number,
    plain?: boolean,
    site?: Site,
  ): void;
}

// V(n) loggers of the levels code uses are made once per logger, so `log.v(4)` in a hot path allocates nothing.
const CACHED_LEVELS = 10;

function verboseLogger(sink: Sink, bound: LogFields, n: number, site: Site | undefined): VerboseLogger {
  const level: LogLevel = n === 0 ? 'info' : 'debug';
  return {
    get enabled() {
      return sink.enabled(n);
    },
    info: (m, f) => {
      if (sink.enabled(n)) sink.emit(bound, level, m, f, n, false, site);
    },
    print: (text) => {
      if (sink.enabled(n)) sink.emit(bound, level, text, undefined, n, true, site);
    },
  };
}

/** A Logger whose records all go to `sink`, with the fields its child loggers bind. */
function boundLogger(sink: Sink, bound: LogFields, site?: Site): Logger {
  const verbose: VerboseLogger[] = [];
  return {
    debug: (m, f) => sink.emit(bound, 'debug', m, f, undefined, false, site),
    info: (m, f) => sink.emit(bound, 'info', m, f, undefined, false, site),
    warn: (m, f) => sink.emit(bound, 'warn', m, f, undefined, false, site),
    error: (m, f) => sink.emit(bound, 'error', m, f, undefined, false, site),
    v: (n) => {
      if (!(n >= 0 && n < CACHED_LEVELS)) return verboseLogger(sink, bound, n, site);
      return (verbose[n] ??= verboseLogger(sink, bound, n, site));
    },
    child: (fields) => boundLogger(sink, { ...bound, ...fields }, site),
    atOneSite: () => boundLogger(sink, bound, {}),
  };
}

export function createJsonLineLogger(options: JsonLineLoggerOptions = {}): Logger {
  const write = options.write ?? stdoutLines();
  const minimum = LEVEL_ORDER[options.level ?? 'info'];
  const now = options.now ?? (() => new Date());
  const sink: Sink = {
    enabled: (n) => LEVEL_ORDER[n === 0 ? 'info' : 'debug'] >= minimum,
    emit: (bound, level, message, fields) => {
      if (LEVEL_ORDER[level] < minimum) return;
      // time, level and msg come first and cannot be overwritten by fields.
      const record = { ...bound, ...fields, time: now().toISOString(), level, msg: message };
      write(`${safeStringify(record)}\n`);
    },
  };
  return boundLogger(sink, options.fields ?? {});
}

export interface KlogLoggerOptions {
  format: LogFormat;
  /** klog's `-v`: a V(n) record is written while it is n or more; a Verbosity follows changes made later. */
  verbosity: number | Verbosity;
  /** Where records go; default standard error, as component-base writes them (stdout with splitStream). */
  write?: (line: string) => void;
  /** --log-*-split-stream: error records go to standard error (or errorWrite), the rest to standard output. */
  splitStream?: boolean;
  errorWrite?: (line: string) => void;
  fields?: LogFields;
  /** The clock (tests); the default has microseconds, which a Date has not. */
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
  const given = options.now;
  const clock = given ? () => given().getTime() * 1000 : wallClockMicros;
  const caller = options.caller ?? siteOutsideLog;
  const format = options.format === 'json' ? formatKlogJson : formatKlogText;
  const pid = process.pid;
  const threshold = typeof options.verbosity === 'number' ? new Verbosity(options.verbosity) : options.verbosity;
  const sink: Sink = {
    enabled: (n) => threshold.enabled(n),
    emit: (bound, level, message, fields, verbosity, plain, site) => {
      if (level !== 'error' && !threshold.enabled(verbosity ?? VERBOSITY[level])) return;
      const all = plain ? {} : fields ? { ...bound, ...fields } : bound;
      const at = site ? (site.caller ??= caller()) : caller();
      const line = format({ level, verbosity, message, plain, fields: all, time: clock(), caller: at, pid });
      if (level === 'error') writeError(line);
      else write(line);
    },
  };
  return boundLogger(sink, options.fields ?? {});
}

const silentVerbose: VerboseLogger = { enabled: false, info: () => {}, print: () => {} };

/** A logger that drops everything (defaults in libraries; tests that do not look at logs). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  v: () => silentVerbose,
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
