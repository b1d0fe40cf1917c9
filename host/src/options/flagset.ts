// A small declarative flag parser with Go pflag conventions (--name=value, --name value, bare booleans, a
// shorthand's value attached as in -v2), so upstream cloud-controller-manager command lines work unchanged. Every
// error names the flag.
import { formatDuration, parseDuration } from '../util/duration.ts';
import { errorMessage } from '../util/error-message.ts';

export class FlagError extends Error {
  readonly flag: string;
  constructor(flag: string, message: string) {
    super(`${flag === '' ? '' : `--${flag}: `}${message}`);
    this.name = 'FlagError';
    this.flag = flag;
  }
}

export interface FlagTypes {
  string: string;
  bool: boolean;
  int: number;
  float: number;
  duration: number;
  stringList: string[];
}
export type FlagType = keyof FlagTypes;

export interface FlagSpec<T extends FlagType = FlagType> {
  type: T;
  default: FlagTypes[T];
  help: string;
  /** Upstream still accepts the flag but deprecated it: parsing says so, with this text (pflag's MarkDeprecated). */
  deprecated?: string;
  /** One letter that also names the flag after a single dash: -v 2, -v=2, -v2 (pflag's shorthand). */
  shorthand?: string;
  /** Extra check; throw an Error whose message says what is wrong with the value. */
  // Method syntax on purpose: it lets a FlagSpec<'int'> stand in a table of FlagSpec<FlagType>.
  validate?(value: FlagTypes[T]): void;
}

export type FlagSpecs = Record<string, FlagSpec>;
export type FlagValues<S extends FlagSpecs> = { [K in keyof S]: S[K] extends FlagSpec<infer T> ? FlagTypes[T] : never };

export interface ParseResult<S extends FlagSpecs> {
  values: FlagValues<S>;
  /** Flags given explicitly on the command line. */
  set: ReadonlySet<keyof S & string>;
  help: boolean;
  /** --version as component-base's verflag takes it: print the version (true), its raw form (raw), or run. */
  version: VersionRequest;
  /** One line per deprecated flag given, as pflag prints them. */
  deprecations: string[];
}

export type VersionRequest = false | 'true' | 'raw';

// strconv.ParseBool, which pflag uses for boolean flags.
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function convert(name: string, spec: FlagSpec, raw: string): FlagTypes[FlagType] {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'bool':
      if (TRUE.has(raw)) return true;
      if (FALSE.has(raw)) return false;
      throw new FlagError(name, `invalid boolean "${raw}" (use true or false)`);
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new FlagError(name, `invalid integer "${raw}"`);
      return Number(raw);
    }
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new FlagError(name, `invalid number "${raw}"`);
      return n;
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch (err) {
        throw new FlagError(name, errorMessage(err));
      }
    case 'stringList':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim());
  }
}

export function parseFlags<S extends FlagSpecs>(specs: S, argv: readonly string[]): ParseResult<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    values[name] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
  }
  const set = new Set<string>();
  const deprecations: string[] = [];
  let help = false;
  let version: VersionRequest = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--version' || arg.startsWith('--version=')) {
      version = versionRequest(arg.slice('--version='.length), arg === '--version');
      continue;
    }
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      throw new FlagError('', `unexpected argument "${arg}" (this command takes flags only)`);
    }
    const { name, attached } = splitArg(specs, arg);
    const spec = specs[name];
    if (!spec) throw new FlagError(name, 'unknown flag (see --help)');
    let raw: string;
    if (attached !== undefined) raw = attached;
    else if (spec.type === 'bool') raw = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new FlagError(name, 'needs a value');
      raw = next;
      i++;
    }
    const value = convert(name, spec, raw);
    if (spec.validate) {
      try {
        spec.validate(value);
      } catch (err) {
        throw new FlagError(name, errorMessage(err));
      }
    }
    // A list flag given again adds to the list, as pflag's slice flags do; the first occurrence replaces the default.
    values[name] =
      spec.type === 'stringList' && set.has(name) ? [...(values[name] as string[]), ...(value as string[])] : value;
    if (spec.deprecated && !set.has(name)) deprecations.push(`Flag --${name} has been deprecated, ${spec.deprecated}`);
    set.add(name);
  }
  return { values: values as FlagValues<S>, set: set as ReadonlySet<keyof S & string>, help, version, deprecations };
}

/**
 * The flag an argument names and the value attached to it, if any. After a single dash comes a shorthand, as pflag
 * has it: followed by more than "=" it takes the rest as its value (-v2 is -v=2). A long name after a single dash
 * (-kubeconfig=x, which Go's flag package accepts) is refused as pflag refuses it, so a command line upstream's CCM
 * refuses is not started here.
 */
function splitArg(specs: FlagSpecs, arg: string): { name: string; attached: string | undefined } {
  if (arg.startsWith('--')) {
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    return eq === -1 ? { name: body, attached: undefined } : { name: body.slice(0, eq), attached: body.slice(eq + 1) };
  }
  const letter = arg.slice(1, 2);
  const short = Object.entries(specs).find(([, spec]) => spec.shorthand === letter);
  if (!short) throw new FlagError('', `unknown shorthand flag: '${letter}' in ${arg}`);
  const rest = arg.slice(2);
  return { name: short[0], attached: rest === '' ? undefined : rest.replace(/^=/, '') };
}

/** --version's value: a boolean (strconv.ParseBool) or raw; verflag's vX.Y.Z override of the version is refused. */
function versionRequest(raw: string, bare: boolean): VersionRequest {
  if (bare || TRUE.has(raw)) return 'true';
  if (FALSE.has(raw)) return false;
  if (raw === 'raw') return 'raw';
  if (raw.startsWith('v')) {
    throw new FlagError('version', `"${raw}": setting the reported version is not supported by wasm-ccm`);
  }
  throw new FlagError('version', `invalid value "${raw}" (use true, false or raw)`);
}

/** A flag's default as --help and the flag reference print it (durations as 10s, lists joined with commas). */
export function formatDefault(spec: FlagSpec): string {
  switch (spec.type) {
    case 'duration':
      return formatDuration(spec.default as number);
    case 'stringList':
      return (spec.default as string[]).join(',');
    case 'string':
      return spec.default === '' ? '' : `"${spec.default as string}"`;
    default:
      return String(spec.default);
  }
}

export function usage(command: string, summary: string, specs: FlagSpecs): string {
  const lines = [`Usage: ${command} [flags]`, '', summary, '', 'Flags:'];
  // pflag leaves deprecated flags out of the help.
  const names = Object.keys(specs)
    .filter((n) => !(specs[n] as FlagSpec).deprecated)
    .sort();
  const width = Math.max(...names.map((n) => n.length + specTypeLabel(specs[n] as FlagSpec).length)) + 10;
  for (const name of names) {
    const spec = specs[name] as FlagSpec;
    const left = `  ${spec.shorthand ? `-${spec.shorthand}, ` : ''}--${name} ${specTypeLabel(spec)}`;
    const def = formatDefault(spec);
    lines.push(`${left.padEnd(width)} ${spec.help}${def !== '' ? ` (default ${def})` : ''}`);
  }
  lines.push(
    `${'  -h, --help'.padEnd(width)} show this help`,
    `${'  --version[=raw]'.padEnd(width)} print the version (raw: every field of it) and quit`,
  );
  return lines.join('\n');
}

function specTypeLabel(spec: FlagSpec): string {
  return spec.type === 'bool' ? '' : spec.type === 'stringList' ? 'strings' : spec.type;
}
