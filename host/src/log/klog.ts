// Records in the two shapes Kubernetes components write (component-base's `--logging-format`), so log pipelines built
// for the other control-plane components parse wasm-ccm's lines unchanged:
//
//   text  I1124 00:18:46.123456   12345 node-controller.js:120] "Synced node" controller="cloud-node" node="n1"
//   json  {"ts":1795480726123,"caller":"node-controller.js:120","msg":"Synced node","v":0,"controller":"cloud-node","node":"n1"}
//
// A record of `V(n)` carries its verbosity as `"v":n` in JSON. klog has no debug or warning level of its own: debug
// records are verbosity 2 (shown from `-v=2`), and a warning is `W` in the text header but, as klog hands warnings to
// a structured backend as info, `"v":0` in JSON. An error record carries no `v`; its error (the field `error` or
// `err`) is printed under `err` first, as klog's ErrorS does. A plain record (klog's Info/Infof rather than InfoS:
// the flag dump, `Version:`) is its text unquoted, without fields, in the text format.
import type { LogFields, LogLevel } from './fields.ts';

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** The verbosity a level is logged at (klog's `V(n)`); error records have none. */
export const VERBOSITY: Record<Exclude<LogLevel, 'error'>, number> = { debug: 2, info: 0, warn: 0 };

const SEVERITY: Record<LogLevel, string> = { debug: 'I', info: 'I', warn: 'W', error: 'E' };
const ERROR_KEYS = ['err', 'error'];

export interface KlogRecord {
  level: LogLevel;
  /** klog's `V(n)` of an info record; absent: the level's (VERBOSITY). */
  verbosity?: number;
  message: string;
  /** The message is printed as it is (klog's Info), and the record has no fields. */
  plain?: boolean;
  /** Bound fields first, then the call's; later keys win as in a plain object spread. */
  fields: LogFields;
  /** Microseconds since the epoch. */
  time: number;
  caller: string;
  pid: number;
}

/** Splits the record's error out of its fields, so it is printed under `err`, first. */
function withError(fields: LogFields): { err: unknown; rest: [string, unknown][] } {
  let err: unknown;
  const rest: [string, unknown][] = [];
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined) continue;
    if (ERROR_KEYS.includes(key) && err === undefined) err = errorText(value);
    else rest.push([key, value]);
  }
  return { err, rest };
}

function errorText(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

export function formatKlogJson(record: KlogRecord): string {
  const { err, rest } = withError(record.fields);
  // ts: milliseconds since the epoch, as component-base's JSON encoder writes it (which adds a sub-millisecond
  // fraction JavaScript's clock does not have).
  let line = `{"ts":${Math.floor(record.time / 1000)},"caller":${JSON.stringify(record.caller)},"msg":${JSON.stringify(record.message)}`;
  if (record.level !== 'error') line += `,"v":${record.verbosity ?? VERBOSITY[record.level]}`;
  if (err !== undefined) line += `,"err":${jsonValue(err)}`;
  for (const [key, value] of rest) {
    if (key === 'ts' || key === 'caller' || key === 'msg' || key === 'v' || key === 'err') continue;
    line += `,${JSON.stringify(key)}:${jsonValue(value)}`;
  }
  return `${line}}\n`;
}

export function formatKlogText(record: KlogRecord): string {
  // A line break would make the rest of the text look like records of their own: such a text is quoted.
  if (record.plain && !/[\r\n]/.test(record.message)) return `${header(record)}${record.message}\n`;
  const { err, rest } = withError(record.fields);
  let line = `${header(record)}${JSON.stringify(record.message)}`;
  if (err !== undefined) line += textPair('err', err);
  for (const [key, value] of rest) line += textPair(key, value);
  return `${line}\n`;
}

// Lmmdd hh:mm:ss.uuuuuu threadid file:line] (klog prints the process ID as the thread ID, padded to 7 characters).
// The time is UTC, where klog prints the process's local time: the same in a container without a time zone.
function header(record: KlogRecord): string {
  const t = new Date(Math.floor(record.time / 1000));
  const micros = String(record.time % 1_000_000).padStart(6, '0');
  return (
    `${SEVERITY[record.level]}${two(t.getUTCMonth() + 1)}${two(t.getUTCDate())} ` +
    `${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}.${micros} ` +
    `${String(record.pid).padStart(7, ' ')} ${record.caller}] `
  );
}

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

function textPair(key: string, value: unknown): string {
  if (typeof value === 'string') return ` ${key}=${textString(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) {
    return ` ${key}=${String(value)}`;
  }
  if (value instanceof Error) return ` ${key}=${textString(value.message)}`;
  return ` ${key}=${jsonValue(value)}`;
}

// A string on one line is quoted; one with line breaks is printed as klog does, each line indented by a tab
// between `=<` and ` >`, so a stack or a multi-line message stays readable.
function textString(value: string): string {
  if (!value.includes('\n')) return JSON.stringify(value);
  const lines = value.endsWith('\n') ? value.slice(0, -1).split('\n') : value.split('\n');
  return `<\n${lines.map((l) => `\t${l}\n`).join('')} >`;
}

// A value must never make logging throw: Errors become their message, BigInts strings, cycles a marker.
function jsonValue(value: unknown): string {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'bigint' ? JSON.stringify(value.toString()) : (JSON.stringify(value) ?? 'null');
  }
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) return v.message;
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[circular]';
      seen.add(v);
    }
    return v;
  });
}
