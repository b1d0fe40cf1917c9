// The SigV4 signatures the broker attached in the last 15 minutes, so that an answer showing an earlier request's
// signature (a request bin that keeps what it received, a log endpoint) has it redacted too: a signature is a secret
// for as long as AWS accepts a replay of its request, which is 15 minutes around its X-Amz-Date. The set is one per
// broker, not per origin: one server may be reached under two host names (moto as 127.0.0.1 and localhost).
//
// An answer is searched by shape, not secret by secret, so the cost does not grow with the number remembered: every
// run of 64 or more hexadecimal digits (any case) is looked up, the 64 digits at its start and at its end, and, in a
// run of up to 256, every window of 64 (a signature between two escaped delimiters, `%3D<sig>%2C`, is a run that
// ends with it; a run longer than 256 is not a signature in an echo, and looking up all its windows would let an
// answer of hex digits cost a lookup per byte).

/** How long an attached signature stays a secret: AWS's window for a request's timestamp. */
export const SIGNATURE_LIFETIME_MS = 15 * 60 * 1000;
/** The most remembered at once; beyond it the oldest are forgotten first (a plugin signing over 55 requests a second). */
export const MAX_REMEMBERED = 50_000;
const SIGNATURE_DIGITS = 64;
const FULLY_SCANNED_RUN = 256;
// 1 for the bytes (and latin1 characters) that are hex digits.
const HEX_DIGIT = new Uint8Array(256);
for (const digit of '0123456789abcdefABCDEF') HEX_DIGIT[digit.charCodeAt(0)] = 1;

export class RecentSignatures {
  /** Signature (lower-case hex) -> when it stops being a secret (performance.now()); oldest first. */
  readonly #until = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  get size(): number {
    this.#forgetExpired();
    return this.#until.size;
  }

  add(signature: string): void {
    const key = signature.toLowerCase();
    this.#until.delete(key);
    this.#until.set(key, this.#now() + SIGNATURE_LIFETIME_MS);
    this.#forgetExpired();
    while (this.#until.size > MAX_REMEMBERED) this.#until.delete(this.#until.keys().next().value as string);
  }

  /** Whether `bytes` may hold a remembered signature: whether they hold a run of 64 hex digits (cheap, in place). */
  mayBeIn(bytes: Uint8Array): boolean {
    return this.size > 0 && hexRunStart(bytes, 0) !== -1;
  }

  /** Adds where every remembered signature is in `text` (a string), as [start, end). */
  find(text: string, found: Array<[number, number]>): void {
    // Scanned as latin1 bytes, one per character (a character past U+00FF becomes some byte: the lookups are made
    // with the text's own characters, so that can only cost a lookup).
    this.findInBytes(Buffer.from(text, 'latin1'), text, found);
  }

  /**
   * The same for bytes, `text` being them read as latin1. By hand rather than with a regular expression: V8 may run
   * one in its interpreter, which costs a hundred milliseconds for a run of megabytes of digits.
   */
  findInBytes(bytes: Uint8Array, text: string, found: Array<[number, number]>): void {
    if (this.size === 0) return;
    for (let from = 0; ;) {
      const start = hexRunStart(bytes, from);
      if (start === -1) return;
      let end = start + SIGNATURE_DIGITS;
      while (end < bytes.length && HEX_DIGIT[bytes[end] as number] === 1) end++;
      this.#findIn(text.slice(start, end), start, found);
      from = end;
    }
  }

  /** `text` with every remembered signature replaced by `replacement`. */
  redact(text: string, replacement: string): string {
    const found: Array<[number, number]> = [];
    this.find(text, found);
    let out = '';
    let from = 0;
    for (const [start, end] of found) {
      out += text.slice(from, start) + replacement;
      from = end;
    }
    return out + text.slice(from);
  }

  // Every remembered signature in one hex run (at `offset` in the text), as [start, end) ranges in order.
  #findIn(run: string, offset: number, ranges: Array<[number, number]>): void {
    const last = run.length - SIGNATURE_DIGITS;
    const starts = run.length <= FULLY_SCANNED_RUN ? Array.from({ length: last + 1 }, (_, i) => i) : [0, last];
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i] as number;
      if (!this.#until.has(run.slice(start, start + SIGNATURE_DIGITS).toLowerCase())) continue;
      ranges.push([offset + start, offset + start + SIGNATURE_DIGITS]);
      // The next one cannot overlap this one.
      while (i + 1 < starts.length && (starts[i + 1] as number) < start + SIGNATURE_DIGITS) i++;
    }
  }

  #forgetExpired(): void {
    const now = this.#now();
    for (const [signature, until] of this.#until) {
      if (until > now) break;
      this.#until.delete(signature);
    }
  }
}

// Where the first run of 64 or more hex digits at or after `from` starts, or -1. By hand, as Boyer-Moore skips: the
// last digit of a candidate window is looked at first, and a character that is not a digit rules out every window
// holding it, so ordinary text costs a read per 64 characters (V8's regexp for [0-9a-f]{64} reads each character,
// slowly where digits are frequent).
function hexRunStart(bytes: Uint8Array, from: number): number {
  let start = from;
  while (start + SIGNATURE_DIGITS <= bytes.length) {
    let at = start + SIGNATURE_DIGITS - 1;
    while (at >= start && HEX_DIGIT[bytes[at] as number] === 1) at--;
    if (at < start) return start;
    start = at + 1;
  }
  return -1;
}
