// The spellings of a secret an answer may carry (redact.ts says which and why), as compiled searches: built once per
// set of secrets and kept, since a credential's secrets are the same on every request.
//
// Each form (the secret, and its base64 runs) is looked for only where an answer holds each of its runs of letters and
// digits: every spelling holds them as they are (letters and digits are never escaped), so native indexOf calls, the
// longest run first, tell at once whether the form can be in an answer at all, which for almost every answer it
// cannot. Where it can, one expression
// finds the form from its first letter or digit on, starting with that literal (which V8 searches for quickly), and a
// second checks the spelling of what comes before it; no expression has unbounded repetition, so a search is linear
// in the answer whatever the answer holds.

/** Secrets shorter than this are not redacted: they would match ordinary text and corrupt answers. */
export const MIN_REDACTED_LENGTH = 4;
// A base64 piece shorter than this (48 bits) could turn up in unrelated base64 text by chance; a secret of 7 bytes or
// more has pieces this long at every alignment.
const MIN_BASE64_LENGTH = 8;
// The longest spelling of one character: `&#x` + 8 zeros + 5 digits + `;`.
const MAX_SPELLING = 17;
const CACHE_SIZE = 64;

export interface SpelledForm {
  /** The form as sent. */
  text: string;
  /** Its runs of letters and digits, longest first; none: then only `text` itself is looked for. */
  runs: string[];
  /** Every spelling of the form from its first letter or digit on (global). */
  rest: RegExp | undefined;
  /** Every spelling of what comes before that, at the end of a string; undefined when nothing does. */
  prefix: RegExp | undefined;
  /** The longest that spelling can be. */
  maxPrefixLength: number;
}

// JSON's short escapes and HTML's named entities, for the characters that have them.
const JSON_SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const HTML_NAMED: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '/': '&sol;',
  '+': '&plus;',
  '=': '&equals;',
};
const ALPHANUMERIC = /[A-Za-z0-9]/;
const ALPHANUMERIC_RUNS = /[A-Za-z0-9]+/g;

const cache = new Map<string, readonly SpelledForm[]>();

/** The forms of `secrets` (those long enough), longest first. */
export function spelledForms(secrets: readonly string[]): readonly SpelledForm[] {
  const key = secrets.join('\0');
  let forms = cache.get(key);
  if (forms === undefined) {
    const kept = [...new Set(secrets.filter((s) => s.length >= MIN_REDACTED_LENGTH))];
    forms = kept
      .flatMap((secret) => [secret, ...(holdsAnother(secret, kept) ? [] : base64Pieces(secret))])
      .sort((a, b) => b.length - a.length)
      .map(spelledForm);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, forms);
  }
  return forms;
}

/**
 * Whether `secret` holds another of `secrets`: the base64 of any text holding it holds one of the other's base64
 * pieces, so its own need not be looked for.
 */
export function holdsAnother(secret: string, secrets: readonly string[]): boolean {
  return secrets.some((other) => other !== secret && secret.includes(other));
}

/**
 * The runs of base64 text the secret's bytes fully determine, in standard and URL-safe base64, for each of the three
 * positions it may start at within a 3-byte group: an echo encoded whole in base64 contains one of them. The same for
 * the secret as a JSON string writes it, for a JSON echo encoded whole (a proxy's base64 body).
 */
export function base64Pieces(secret: string): string[] {
  const pieces = new Set<string>();
  const inJson = JSON.stringify(secret).slice(1, -1);
  for (const form of inJson === secret ? [secret] : [secret, inJson]) {
    const bytes = Buffer.from(form, 'utf8');
    for (let lead = 0; lead < 3; lead++) {
      const padded = Buffer.concat([Buffer.alloc(lead), bytes, Buffer.alloc(3)]);
      // Character j holds bits 6j..6j+5: it is the secret's alone when they lie within its bytes.
      const first = Math.ceil((8 * lead) / 6);
      const end = Math.floor((8 * (lead + bytes.length)) / 6);
      if (end - first < MIN_BASE64_LENGTH) continue;
      pieces.add(padded.toString('base64').slice(first, end));
      pieces.add(padded.toString('base64url').slice(first, end));
    }
  }
  return [...pieces];
}

function spelledForm(text: string): SpelledForm {
  const runs = [...new Set(text.match(ALPHANUMERIC_RUNS) ?? [])].sort((a, b) => b.length - a.length);
  if (runs.length === 0) return { text, runs, rest: undefined, prefix: undefined, maxPrefixLength: 0 };
  const split = text.search(ALPHANUMERIC);
  const before = [...text.slice(0, split)];
  return {
    text,
    runs,
    rest: new RegExp(spellings([...text.slice(split)]), 'g'),
    prefix: before.length === 0 ? undefined : new RegExp(`(?:${spellings(before)})$`),
    maxPrefixLength: before.length * MAX_SPELLING,
  };
}

// Each character as itself or, unless a letter or digit, in any escape an encoder writes for it.
function spellings(chars: string[]): string {
  let source = '';
  for (const char of chars) source += ALPHANUMERIC.test(char) ? char : `(?:${charSpellings(char).join('|')})`;
  return source;
}

function charSpellings(char: string): string[] {
  const utf8 = [...Buffer.from(char, 'utf8')];
  const codePoint = char.codePointAt(0) as number;
  const out = [literal(char)];
  // Bytes read as latin1: a non-ASCII character is its UTF-8 bytes.
  if (utf8.length > 1) out.push(utf8.map((b) => literal(String.fromCharCode(b))).join(''));
  // JSON: \uXXXX for each UTF-16 unit (a surrogate pair for a character past U+FFFF), and the short escapes.
  const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  out.push(units.map((unit) => `\\\\u${anyCaseHex(unit, 4)}`).join(''));
  if (JSON_SHORT[char] !== undefined) out.push(literal(JSON_SHORT[char]));
  // Percent-encoding of the UTF-8 bytes, and a form's + for a space.
  out.push(utf8.map((b) => `%${anyCaseHex(b, 2)}`).join(''));
  if (char === ' ') out.push('\\+');
  // HTML character references: hexadecimal, decimal, named. Leading zeros bounded: an unbounded repetition over a
  // long run of them would exhaust the expression's backtracking stack.
  out.push(`&#[xX]0{0,8}${anyCaseHex(codePoint, 1)};`, `&#0{0,8}${codePoint};`);
  if (HTML_NAMED[char] !== undefined) out.push(literal(HTML_NAMED[char]));
  return out;
}

function anyCaseHex(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}

function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
