// The rules a plugin setting obeys wherever it is given: in the plugin configuration file (parse.ts) and on the
// command line (the --plugin-* flags, options/ccm-options.ts), one code path, so a value is valid in both or neither
// and a bad flag is refused at parsing, naming the flag, rather than when the plugin loads.
import { checkCredentialFile } from '../broker/credential-file.ts';
import { parseEntry } from '../broker/allow-list.ts';

export interface Range {
  readonly min: number;
  readonly max: number;
}

export const LIMIT_RANGES = {
  callTimeoutMs: { min: 1, max: 10 * 60_000 },
  memoryLimitMB: { min: 1, max: 4096 },
  maxModuleMB: { min: 1, max: 1024 },
  poolSize: { min: 1, max: 64 },
  poolMinSize: { min: 1, max: 64 },
  poolIdleTimeoutMs: { min: 1000, max: 24 * 3_600_000 },
} as const satisfies Record<string, Range>;

/** A module pin: 64 hexadecimal digits, optionally `sha256:`-prefixed. */
export const SHA256_PIN = /^(sha256:)?[0-9a-fA-F]{64}$/;
export const SHA256_PIN_WHAT = '64 hexadecimal digits';

/** The pin as the loader compares it: lower-case hex without the prefix. */
export function normalizeSha256(pin: string): string {
  return pin.toLowerCase().replace(/^sha256:/, '');
}

/** Why `value` is not an integer within `range`, or undefined when it is. */
export function integerProblem(value: number, range: Range): string | undefined {
  if (!Number.isInteger(value)) return `expected an integer, got ${value}`;
  if (value < range.min || value > range.max) return `must be from ${range.min} to ${range.max}, got ${value}`;
  return undefined;
}

/** Why a duration of `ms` (spelled `text`) is outside `range`, or undefined. */
export function durationProblem(ms: number, range: Range, text: string): string | undefined {
  if (ms < range.min || ms > range.max) {
    return `must be from ${range.min / 1000}s to ${range.max / 1000}s, got "${text}"`;
  }
  return undefined;
}

/** Throws AllowListError saying why `entry` is not a `host` or `host:port` the plugin may be allowed. */
export function checkAllowedHost(entry: string): void {
  parseEntry(entry);
}

/**
 * Throws CredentialFileError saying what is wrong with a credentials file's text or the key files it names (they are
 * read again by the plugin's credential store, which refuses them at start anyway: checked here so that the flag or
 * field is named).
 */
export function checkCredentialsText(text: string, path: string): void {
  checkCredentialFile(text, path);
}
