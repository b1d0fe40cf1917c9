// A linear scan of a plugin's answer before anything parses it. JSON.parse has no limits of its own: an unknown field
// nested 8,000,000 levels deep (16 MB) took RSS from 127 to 720 MB and aborted a CCM running with the chart's heap
// (exit 134); 1 MiB of empty objects is 350,000 of them. The scan counts nesting outside strings and the values an
// answer holds (each `{`, `[` and `,`), and refuses past the limits before a byte is parsed. Strings are stepped over
// with indexOf past their first bytes, so their length costs next to nothing. Bytes that are not JSON are left for
// JSON.parse to name.

/** Nesting of objects and lists an answer may have; the ABI's deepest answer has 6 levels. */
const MAX_ANSWER_DEPTH = 128;
/**
 * Values an answer may hold, counted as its `{`, `[` and `,`. Parsing costs the main thread up to about 400 ns of CPU
 * a value (a short string V8 interns, an object of unique values): 128 Ki values take at most 60 ms, whatever their
 * shape. The largest real answer is listRoutes: 10,000 routes (5,000 dual-stack nodes) of two addresses each count
 * 120,000 values; cloud route tables hold at most a few thousand routes (Azure 400, AWS 1,000).
 */
export const MAX_ANSWER_VALUES = 128 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const COMMA = 0x2c;

export interface AnswerLimits {
  depth: number;
  values: number;
}

const ANSWER_LIMITS: AnswerLimits = { depth: MAX_ANSWER_DEPTH, values: MAX_ANSWER_VALUES };

/** What makes the answer too deep or too large to parse, or undefined. */
export function scanAnswer(bytes: Uint8Array, limits: AnswerLimits = ANSWER_LIMITS): string | undefined {
  const end = bytes.length;
  let depth = 0;
  let values = 0;
  for (let at = 0; at < end; at++) {
    const byte = bytes[at] as number;
    if (byte === QUOTE) {
      at = stringEnd(bytes, at + 1);
      if (at < 0) return undefined;
    } else if (byte === OPEN_OBJECT || byte === OPEN_LIST) {
      if (++depth > limits.depth) return `the plugin's answer is nested deeper than ${limits.depth} levels`;
      if (++values > limits.values) return tooManyValues(limits);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_LIST) {
      depth--;
    } else if (byte === COMMA && ++values > limits.values) {
      return tooManyValues(limits);
    }
  }
  return undefined;
}

const tooManyValues = (limits: AnswerLimits): string => `the plugin's answer holds more than ${limits.values} values`;

/** Bytes of a string looked through one by one before indexOf takes over (a call costs more than a short loop). */
const SHORT_STRING_BYTES = 32;

/** The offset of the quote that ends the string whose content starts at `from`; -1 when none does. */
function stringEnd(bytes: Uint8Array, from: number): number {
  for (let at = from; ; at++) {
    const short = Math.min(bytes.length, at + SHORT_STRING_BYTES);
    while (at < short && bytes[at] !== QUOTE) at++;
    if (at === short) at = bytes.indexOf(QUOTE, at);
    if (at < 0) return -1;
    // A quote after an odd number of backslashes is escaped. Each run of backslashes is counted once.
    let escapes = 0;
    while (at - escapes - 1 >= from && bytes[at - escapes - 1] === BACKSLASH) escapes++;
    if (escapes % 2 === 0) return at;
  }
}
