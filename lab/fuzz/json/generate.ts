// Valid JSON documents written the many ways the grammar allows: white space between any tokens, every escape
// form (\u for any unit, lone surrogates included), raw multi-byte UTF-8, number spellings from "0" to 30-digit
// mantissas and exponents past f64's range, duplicate keys and nesting around the SDK's 256-level limit.
import type { Random } from './random.ts';

const WHITESPACE = [' ', '\n', '\r', '\t', '  ', ' \n\t '];

// Code points that stress the decoders: ASCII specials, 2-, 3- and 4-byte UTF-8, noncharacters, the BOM, U+2028.
const INTERESTING_CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  'é',
  '\u07ff',
  '\u0800',
  '中',
  '\ufeff',
  '\u2028',
  '\ufffd',
  '\uffff',
  '😀',
  '\u{10ffff}',
  '\u{10000}',
];

const SHORT_KEYS = ['a', 'b', 'id', 'name', '__proto__', 'constructor', '1', '0', '', 'é', 'toString'];

/** A random valid document, as text. Lone surrogates only ever appear as \u escapes. */
export function generateDocument(rng: Random): string {
  const depth = rng.chance(0.03) ? rng.int(200, 300) : 0;
  if (depth > 0) return deepDocument(rng, depth);
  return ws(rng) + value(rng, rng.int(0, 5)) + ws(rng);
}

function ws(rng: Random): string {
  return rng.chance(0.2) ? rng.pick(WHITESPACE) : '';
}

function value(rng: Random, budget: number): string {
  const kind = rng.int(0, budget > 0 ? 7 : 4);
  switch (kind) {
    case 0:
      return rng.pick(['true', 'false', 'null']);
    case 1:
    case 2:
      return numberText(rng);
    case 3:
    case 4:
      return stringText(rng);
    case 5:
    case 6:
      return objectText(rng, budget - 1);
    default:
      return arrayText(rng, budget - 1);
  }
}

function arrayText(rng: Random, budget: number): string {
  const n = rng.int(0, 6);
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(ws(rng) + value(rng, budget) + ws(rng));
  return `[${items.join(',')}${n === 0 ? ws(rng) : ''}]`;
}

function objectText(rng: Random, budget: number): string {
  const n = rng.int(0, 6);
  const fields: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    // Duplicate keys: JSON.parse keeps the last value, in the position of the first.
    const key = keys.length > 0 && rng.chance(0.15) ? rng.pick(keys) : keyText(rng);
    keys.push(key);
    fields.push(`${ws(rng)}${key}${ws(rng)}:${ws(rng)}${value(rng, budget)}${ws(rng)}`);
  }
  return `{${fields.join(',')}${n === 0 ? ws(rng) : ''}}`;
}

function keyText(rng: Random): string {
  return rng.chance(0.6) ? quoteUnits(rng, rng.pick(SHORT_KEYS)) : stringText(rng);
}

function deepDocument(rng: Random, depth: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    if (rng.chance(0.5)) {
      open += '[';
      close = `]${close}`;
    } else {
      open += `{${quoteUnits(rng, 'k')}:`;
      close = `}${close}`;
    }
  }
  return open + value(rng, 1) + close;
}

/** A number as text: always valid JSON, sometimes far outside what f64 holds exactly. */
function numberText(rng: Random): string {
  switch (rng.int(0, 7)) {
    case 0:
      return String(rng.int(-1000, 1000));
    case 1:
      return rng.pick([
        '0',
        '-0',
        '-0.0',
        '0e0',
        '1E+2',
        '1e-2',
        '9007199254740993',
        '-9007199254740993',
        '18446744073709551616',
        '1e308',
        '1.7976931348623157e308',
        '1.7976931348623159e308',
        '1e309',
        '-1e400',
        '5e-324',
        '2e-324',
        '1e-400',
        '2.2250738585072011e-308',
        '2.2250738585072014e-308',
        '0.1',
        '0.30000000000000004',
        '123456789012345',
        '1234567890123456',
        '999999999999999',
        '9999999999999999',
      ]);
    case 2:
      return String(rng.next() * 10 ** rng.int(-30, 30) * (rng.chance(0.5) ? -1 : 1));
    default:
      return digitsNumber(rng);
  }
}

function digits(rng: Random, min: number, max: number): string {
  let s = '';
  for (let n = rng.int(min, max); n > 0; n--) s += String(rng.int(0, 9));
  return s;
}

function digitsNumber(rng: Random): string {
  let s = rng.chance(0.3) ? '-' : '';
  s += rng.chance(0.2) ? '0' : String(rng.int(1, 9)) + digits(rng, 0, rng.chance(0.2) ? 40 : 20);
  if (rng.chance(0.5)) s += `.${digits(rng, 1, rng.chance(0.2) ? 40 : 18)}`;
  if (rng.chance(0.4)) s += `${rng.pick(['e', 'E'])}${rng.pick(['', '+', '-'])}${digits(rng, 1, 3)}`;
  return s;
}

/** A string literal of random units (lone surrogates among them), each written raw or escaped at random. */
function stringText(rng: Random): string {
  const n = rng.chance(0.05) ? rng.int(50, 400) : rng.int(0, 12);
  let units = '';
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    if (r < 0.55) units += String.fromCharCode(rng.int(0x20, 0x7e));
    else if (r < 0.85) units += rng.pick(INTERESTING_CHARS);
    else if (r < 0.93)
      units += String.fromCharCode(rng.int(0xd800, 0xdfff)); // a lone surrogate, or half a pair
    else units += String.fromCodePoint(rng.int(0x80, 0x10ffff));
  }
  return quoteUnits(rng, units);
}

/** Quotes UTF-16 units as a JSON string, choosing per unit between raw text and the escapes that allow it. */
function quoteUnits(rng: Random, units: string): string {
  let out = '"';
  for (let i = 0; i < units.length; i++) {
    const c = units.charCodeAt(i);
    const pair = c >= 0xd800 && c < 0xdc00 && isLow(units.charCodeAt(i + 1));
    const lone = !pair && c >= 0xd800 && c < 0xe000;
    if (c < 0x20 || c === 0x22 || c === 0x5c || lone || rng.chance(0.1)) {
      out += escapeUnit(rng, c);
    } else if (pair) {
      out += rng.chance(0.2) ? escapeUnit(rng, c) + escapeUnit(rng, units.charCodeAt(i + 1)) : units.slice(i, i + 2);
      i++;
    } else {
      out += units[i];
    }
  }
  return `${out}"`;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c < 0xe000;
}

const SHORT_ESCAPES: Record<number, string> = { 8: 'b', 9: 't', 10: 'n', 12: 'f', 13: 'r', 0x22: '"', 0x5c: '\\' };

function escapeUnit(rng: Random, c: number): string {
  const short = c === 0x2f ? '/' : SHORT_ESCAPES[c];
  if (short !== undefined && rng.chance(0.7)) return `\\${short}`;
  const hex = c.toString(16).padStart(4, '0');
  return `\\u${rng.chance(0.5) ? hex : hex.toUpperCase()}`;
}
