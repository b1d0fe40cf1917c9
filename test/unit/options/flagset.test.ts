import { describe, expect, it } from 'vitest';
import { type FlagSpec, FlagError, parseFlags, usage } from '../../../host/src/options/flagset.ts';

const specs = {
  name: { type: 'string', default: 'x', help: 'a name' } satisfies FlagSpec<'string'>,
  on: { type: 'bool', default: true, help: 'a switch' } satisfies FlagSpec<'bool'>,
  count: {
    type: 'int',
    default: 1,
    help: 'a count',
    validate: (v: number) => {
      if (v < 1) throw new Error('must be >= 1');
    },
  } satisfies FlagSpec<'int'>,
  rate: { type: 'float', default: 2.5, help: 'a rate' } satisfies FlagSpec<'float'>,
  every: { type: 'duration', default: 5000, help: 'a period' } satisfies FlagSpec<'duration'>,
  list: { type: 'stringList', default: ['*'], help: 'a list' } satisfies FlagSpec<'stringList'>,
  level: { type: 'int', default: 0, help: 'a level', shorthand: 'l' } satisfies FlagSpec<'int'>,
};

function flagError(fn: () => unknown): FlagError {
  try {
    fn();
  } catch (err) {
    if (err instanceof FlagError) return err;
    throw err;
  }
  throw new Error('expected a FlagError');
}

describe('parseFlags', () => {
  it('keeps defaults when nothing is given', () => {
    const { values, set } = parseFlags(specs, []);
    expect(values).toEqual({ name: 'x', on: true, count: 1, rate: 2.5, every: 5000, list: ['*'], level: 0 });
    expect(set.size).toBe(0);
  });

  it('accepts --name=value, --name value, bare and explicit booleans', () => {
    const { values, set } = parseFlags(specs, [
      '--name=a=b',
      '--count',
      '3',
      '--rate=0.5',
      '--on=false',
      '--every=1m',
      '--list=a,-b, c',
    ]);
    expect(values).toMatchObject({
      name: 'a=b',
      on: false,
      count: 3,
      rate: 0.5,
      every: 60_000,
      list: ['a', '-b', 'c'],
    });
    expect([...set].sort()).toEqual(['count', 'every', 'list', 'name', 'on', 'rate']);
    expect(parseFlags(specs, ['--on']).values.on).toBe(true);
  });

  it('does not share a default list between parses', () => {
    parseFlags(specs, []).values.list.push('mutated');
    expect(parseFlags(specs, []).values.list).toEqual(['*']);
  });

  it('names the flag in every error', () => {
    expect(flagError(() => parseFlags(specs, ['--nope=1'])).message).toBe('--nope: unknown flag (see --help)');
    expect(flagError(() => parseFlags(specs, ['--count=two'])).message).toBe('--count: invalid integer "two"');
    expect(flagError(() => parseFlags(specs, ['--count=0'])).message).toBe('--count: must be >= 1');
    expect(flagError(() => parseFlags(specs, ['--on=maybe'])).flag).toBe('on');
    expect(flagError(() => parseFlags(specs, ['--every=5'])).message).toMatch(/^--every: invalid duration "5"/);
    expect(flagError(() => parseFlags(specs, ['--rate=fast'])).message).toBe('--rate: invalid number "fast"');
    expect(flagError(() => parseFlags(specs, ['--name'])).message).toBe('--name: needs a value');
    expect(flagError(() => parseFlags(specs, ['stray'])).message).toMatch(/unexpected argument "stray"/);
  });

  it("takes a shorthand's value as pflag does: attached (-l2, -l=2) or the next argument", () => {
    for (const args of [['-l2'], ['-l=2'], ['-l', '2'], ['--level=2']]) {
      expect(parseFlags(specs, args).values.level, args.join(' ')).toBe(2);
    }
    expect(parseFlags(specs, ['-l2']).set).toEqual(new Set(['level']));
    expect(flagError(() => parseFlags(specs, ['-lx'])).message).toBe('--level: invalid integer "x"');
    expect(flagError(() => parseFlags(specs, ['-x2'])).message).toBe("unknown shorthand flag: 'x' in -x2");
    // A long name after one dash is a shorthand and its value to pflag: refused unless its letter is a shorthand.
    expect(flagError(() => parseFlags(specs, ['-rate=0.5'])).message).toBe("unknown shorthand flag: 'r' in -rate=0.5");
    expect(flagError(() => parseFlags(specs, ['-level=2'])).message).toBe('--level: invalid integer "evel=2"');
    expect(usage('cmd', 'does things', specs)).toMatch(/\n {2}-l, --level int +a level/);
  });

  it('recognises --help and --version, whose value is a boolean or raw (component-base verflag)', () => {
    expect(parseFlags(specs, ['--help']).help).toBe(true);
    expect(parseFlags(specs, ['-h']).help).toBe(true);
    expect(parseFlags(specs, []).version).toBe(false);
    expect(parseFlags(specs, ['--version']).version).toBe('true');
    expect(parseFlags(specs, ['--version=T']).version).toBe('true');
    expect(parseFlags(specs, ['--version=raw']).version).toBe('raw');
    expect(parseFlags(specs, ['--version', '--version=false']).version).toBe(false);
    expect(flagError(() => parseFlags(specs, ['--version=yes'])).message).toBe(
      '--version: invalid value "yes" (use true, false or raw)',
    );
    expect(flagError(() => parseFlags(specs, ['--version=v1.36.3'])).message).toMatch(
      /^--version: "v1.36.3": setting the reported version is not supported/,
    );
  });

  it('prints every flag with its default in usage', () => {
    const text = usage('cmd', 'does things', specs);
    for (const name of Object.keys(specs)) expect(text).toContain(`--${name}`);
    expect(text).toContain('(default 5s)');
    expect(text).toContain('(default "x")');
    expect(text).toContain('(default *)');
  });
});
