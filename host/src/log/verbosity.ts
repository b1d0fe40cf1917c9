// klog's -v: one threshold for the whole process, read by every logger at each record and changed while the process
// runs (PUT /debug/flags/v), so a logger made at start follows the level set later.

/** klog keeps the level in an int32. */
const MAX_VERBOSITY = 2 ** 31 - 1;

export class Verbosity {
  #level = 0;

  constructor(level = 0) {
    this.level = level;
  }

  get level(): number {
    return this.#level;
  }

  set level(value: number) {
    if (!Number.isInteger(value) || value < 0 || value > MAX_VERBOSITY) {
      throw new RangeError(`invalid verbosity ${value}: must be an integer from 0 to ${MAX_VERBOSITY}`);
    }
    this.#level = value;
  }

  /** Whether records of verbosity `n` are written now (klog's `V(n).Enabled()`). */
  enabled(n: number): boolean {
    return this.#level >= n;
  }
}

/**
 * A level as text, as component-base's GlogSetter takes it from a PUT body: a decimal integer from 0 on, surrounding
 * white space allowed (`curl -d 4` sends no newline, `echo 4 |` does). Throws naming the text otherwise.
 */
export function parseVerbosity(text: string): number {
  const trimmed = text.trim();
  const level = /^\d{1,10}$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(level <= MAX_VERBOSITY)) {
    throw new RangeError(
      `invalid verbosity ${JSON.stringify(text.slice(0, 40))}: must be an integer from 0 to ${MAX_VERBOSITY}`,
    );
  }
  return level;
}
