// The flag dump upstream components write at start from -v=1 (component-base's cli/flag.PrintFlags): one
// `FLAG: --name="value"` line per flag, sorted by name, each value as pflag prints it (Go-quoted).
import { goDuration } from '../util/duration.ts';
import type { FlagSpec, FlagSpecs, FlagTypes } from './flagset.ts';

// A map flag in upstream (--feature-gates): its value is the pairs joined by commas, without brackets.
const MAP_FLAGS = new Set(['feature-gates']);

function flagValue(name: string, spec: FlagSpec, value: FlagTypes[keyof FlagTypes]): string {
  switch (spec.type) {
    case 'duration':
      return goDuration(value as number);
    case 'stringList': {
      const list = value as string[];
      return MAP_FLAGS.has(name) ? [...list].sort().join(',') : `[${list.join(',')}]`;
    }
    default:
      return String(value);
  }
}

/** The lines, sorted by flag name, with pflag's --help and --version as the command line had them (false). */
export function flagLines(specs: FlagSpecs, values: Readonly<Record<string, unknown>>): string[] {
  const entries: [string, string][] = Object.entries(specs).map(([name, spec]) => [
    name,
    flagValue(name, spec, values[name] as FlagTypes[keyof FlagTypes]),
  ]);
  entries.push(['help', 'false'], ['version', 'false']);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.map(([name, value]) => `FLAG: --${name}=${JSON.stringify(value)}`);
}
