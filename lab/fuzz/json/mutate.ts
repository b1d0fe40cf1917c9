// Byte-level damage to valid documents: what a broken or hostile cloud API could send. Most mutants are invalid;
// the ones that stay valid (a digit changed, a space added) are as useful, since both parsers must then agree.
import type { Random } from './random.ts';

// Bytes that change the grammar's state, and bytes that break UTF-8 (continuations, overlong and surrogate leads,
// bytes that never occur, a lead with its continuations cut off).
const GRAMMAR = [...'{}[]",:\\/-+.eE0123456789tfnu \t\r\n'].map((c) => c.charCodeAt(0));
const HOSTILE = [0x00, 0x01, 0x0b, 0x0c, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0];
const HOSTILE_TAIL = [0xf4, 0xf5, 0xf8, 0xfe, 0xff];
const SEQUENCES = [
  [0xef, 0xbb, 0xbf], // a BOM
  [0xc2, 0xa0], // NO-BREAK SPACE, not JSON white space
  [0xe2, 0x80, 0xa8], // U+2028
  [0xed, 0xa0, 0x80], // a surrogate encoded in UTF-8 (CESU-8)
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xe0, 0x80, 0xaf], // an overlong '/'
  [0xc0, 0xaf], // an overlong '/', two bytes
  [0xe2, 0x82], // a truncated '€'
  [0xf0, 0x9f, 0x98], // a truncated emoji
  [...'\\u'].map((c) => c.charCodeAt(0)),
  [...'\\ud800'].map((c) => c.charCodeAt(0)),
  [...'\\udc00\\ud800'].map((c) => c.charCodeAt(0)),
  [...'NaN'].map((c) => c.charCodeAt(0)),
  [...'Infinity'].map((c) => c.charCodeAt(0)),
  [...'1e99999'].map((c) => c.charCodeAt(0)),
  [...',"k":1'].map((c) => c.charCodeAt(0)),
];

/** What mutations insert: single bytes that matter to the grammar or to UTF-8, and whole sequences. */
export interface Dictionary {
  interesting: readonly number[];
  sequences: readonly (readonly number[])[];
}

export const JSON_DICTIONARY: Dictionary = {
  interesting: [...GRAMMAR, ...HOSTILE, ...HOSTILE_TAIL],
  sequences: SEQUENCES,
};

/** The bytes of text, for dictionaries. */
export function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

/** Bytes that break UTF-8 or are control characters, for other grammars' dictionaries. */
export const UTF8_HOSTILE: readonly number[] = [...HOSTILE, ...HOSTILE_TAIL];
export const UTF8_SEQUENCES: readonly (readonly number[])[] = SEQUENCES.slice(0, 9);

/** 1 to 3 random mutations of `doc` (never the same array). */
export function mutate(rng: Random, doc: Uint8Array, dictionary: Dictionary = JSON_DICTIONARY): Uint8Array {
  let out: number[] = [...doc];
  for (let n = rng.int(1, 3); n > 0; n--) out = mutateOnce(rng, out, dictionary);
  return Uint8Array.from(out);
}

function mutateOnce(rng: Random, bytes: number[], dictionary: Dictionary): number[] {
  const { interesting, sequences } = dictionary;
  const at = rng.int(0, bytes.length);
  const out = [...bytes];
  switch (rng.int(0, 8)) {
    case 0: // replace a byte
      if (at < out.length) out[at] = rng.pick(interesting);
      return out;
    case 1: // insert a byte
      out.splice(at, 0, rng.chance(0.8) ? rng.pick(interesting) : rng.int(0, 255));
      return out;
    case 2: // delete a few bytes
      out.splice(at, rng.int(1, 4));
      return out;
    case 3: // insert a sequence
      out.splice(at, 0, ...rng.pick(sequences));
      return out;
    case 4: // truncate
      return out.slice(0, at);
    case 5: // trailing garbage
      return [...out, ...(rng.chance(0.5) ? rng.pick(sequences) : [rng.pick(interesting)])];
    case 6: {
      // repeat a slice somewhere else (duplicates keys, values, brackets)
      const from = rng.int(0, out.length);
      const slice = out.slice(from, from + rng.int(1, 12));
      out.splice(at, 0, ...slice);
      return out;
    }
    case 7: // flip one bit
      if (at < out.length) out[at] = (out[at] as number) ^ (1 << rng.int(0, 7));
      return out;
    default: // swap two bytes
      if (out.length > 1) {
        const a = rng.int(0, out.length - 1);
        const b = rng.int(0, out.length - 1);
        [out[a], out[b]] = [out[b] as number, out[a] as number];
      }
      return out;
  }
}
