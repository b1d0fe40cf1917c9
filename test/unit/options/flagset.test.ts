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
    expect(values).toEqual({ name: 'x', on: true, count: 1, rate: 2.5, every: 5000, list: ['*'] });
    expect(set.size).toBe(0);
  });

  it('accepts --name=value, --name value, single dash, bare and explicit booleans', () => {
    const { values, set } = parseFlags(specs, [
      '--name=a=b',
      '--count',
      '3',
      '-rate=0.5',
      '--on=false',
      '--every=1m',
      '--list=a,-b, c',
    ]);
    expect(values).toEqual({ name: 'a=b', on: false, count: 3, rate: 0.5, every: 60_000, list: ['a', '-b', 'c'] });
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

  it('recognises --help and --version', () => {
    expect(parseFlags(specs, ['--help']).help).toBe(true);
    expect(parseFlags(specs, ['-h']).help).toBe(true);
    expect(parseFlags(specs, ['--version']).version).toBe(true);
  });

  it('prints every flag with its default in usage', () => {
    const text = usage('cmd', 'does things', specs);
    for (const name of Object.keys(specs)) expect(text).toContain(`--${name}`);
    expect(text).toContain('(default 5s)');
    expect(text).toContain('(default "x")');
    expect(text).toContain('(default *)');
  });
});
