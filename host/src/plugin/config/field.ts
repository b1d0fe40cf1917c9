// A cursor over parsed YAML/JSON that knows where it is, so every validation error names the exact field path
// (`providers[1].source.configMap.key: required`): an operator fixing a config must not have to guess which entry.
import { parseDuration } from '../../util/duration.ts';
import { errorMessage } from '../../util/error-message.ts';
import { durationProblem, integerProblem, type Range } from './rules.ts';

export class PluginConfigError extends Error {
  override name = 'PluginConfigError';
  /** The field path, e.g. `providers[1].source.configMap.key` ('' for the document itself). */
  readonly path: string;

  constructor(path: string, message: string) {
    super(path === '' ? message : `${path}: ${message}`);
    this.path = path;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

export class Field {
  readonly path: string;
  readonly value: unknown;

  constructor(path: string, value: unknown) {
    this.path = path;
    this.value = value;
  }

  fail(message: string): never {
    throw this.error(message);
  }

  error(message: string): PluginConfigError {
    return new PluginConfigError(this.path, message);
  }

  /** YAML's `key:` with nothing after it is null: treated as absent, like a missing key. */
  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  child(key: string): Field {
    const record = this.value as Record<string, unknown> | undefined;
    const value = record !== null && typeof record === 'object' && Object.hasOwn(record, key) ? record[key] : undefined;
    return new Field(this.path === '' ? key : `${this.path}.${key}`, value);
  }

  /** Requires a mapping whose keys are all known (a typo is an error, not a silently ignored setting). */
  mapping(known?: readonly string[]): Record<string, unknown> {
    if (!this.present) this.fail('required');
    const v = this.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      this.fail(`expected a mapping, got ${describeType(v)}`);
    const record = v as Record<string, unknown>;
    if (known) {
      for (const key of Object.keys(record)) {
        if (!known.includes(key)) this.child(key).fail(`unknown field (known: ${known.join(', ')})`);
      }
    }
    return record;
  }

  list(): Field[] {
    if (!this.present) this.fail('required');
    if (!Array.isArray(this.value)) this.fail(`expected a list, got ${describeType(this.value)}`);
    return this.value.map((item, i) => new Field(`${this.path}[${i}]`, item));
  }

  optionalList(): Field[] {
    return this.present ? this.list() : [];
  }

  string(options: { pattern?: RegExp; what?: string } = {}): string {
    if (!this.present) this.fail('required');
    if (typeof this.value !== 'string') this.fail(`expected a string, got ${describeType(this.value)}`);
    if (this.value.trim() === '') this.fail('must not be empty');
    if (options.pattern && !options.pattern.test(this.value)) {
      this.fail(`"${this.value}" is not ${options.what ?? `of the form ${options.pattern.source}`}`);
    }
    return this.value;
  }

  optionalString(options: { pattern?: RegExp; what?: string } = {}): string | undefined {
    return this.present ? this.string(options) : undefined;
  }

  integer(range: Range): number {
    if (!this.present) this.fail('required');
    const v = this.value;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(`expected an integer, got ${describeType(v)}`);
    const problem = integerProblem(v, range);
    if (problem !== undefined) this.fail(problem);
    return v;
  }

  boolean(): boolean {
    if (typeof this.value !== 'boolean') this.fail(`expected true or false, got ${describeType(this.value)}`);
    return this.value;
  }

  /** A Go duration string ("10s", "1m30s"), as the command-line flags take them; returns milliseconds. */
  duration(range: Range): number {
    if (!this.present) this.fail('required');
    if (typeof this.value !== 'string') this.fail(`expected a duration such as "10s", got ${describeType(this.value)}`);
    let ms: number;
    try {
      ms = parseDuration(this.value);
    } catch (err) {
      this.fail(errorMessage(err));
    }
    const problem = durationProblem(ms, range, this.value);
    if (problem !== undefined) this.fail(problem);
    return ms;
  }
}
