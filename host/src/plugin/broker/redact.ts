// Brokered secrets never reach the plugin, not even back through an answer: an allowed endpoint that echoes the
// request (a debugging endpoint, a proxy's error page, an API that reflects headers, a request bin) would otherwise
// hand the plugin the token the host attached. The answer's headers and body, and the error the plugin gets instead
// of an answer, have every secret attached to the request replaced before the plugin sees them. The scan runs only
// for requests that carried a credential.
//
// What is found, for a credential's own secrets (a token, a password, header values, an AWS secret key and session
// token): the secret as sent, and as the encoders that reflect text write it, in any mix: each character that is not
// a letter or digit also as a JSON escape (`\/`, `\"`, `\uXXXX` in either case, a surrogate pair past U+FFFF), a
// percent-escape of its UTF-8 bytes (either case; `+` for a space), or an HTML character reference (`&#x2F;`,
// `&#47;`, `&amp;`...); and the runs of base64 (standard and URL-safe, at each of the three byte alignments) that the
// secret alone determines, for an echo encoded whole. Letters and digits are matched only as themselves: no encoder
// escapes them, and a server set on hiding a secret from the scan can always transform it otherwise (it holds the
// secret), so a broader search would only cost more on every answer, and would lose what makes the search quick: each
// spelling holds the secret's runs of letters and digits as they are (secret-forms.ts). A secret without a letter or digit is found as
// sent only.
//
// For a request's own one-time values (a SigV4 Authorization value and its signature, which change with every
// request and are hex or plain ASCII): the value as sent, and the signature's base64 runs. Signatures attached
// earlier are found by shape (recent-signatures.ts): an answer showing a previous request's signature is scanned too.
//
// What is not: a secret shorter than MIN_REDACTED_LENGTH (it would match ordinary text and corrupt answers), a
// compressed answer (the broker asks for identity and refuses another coding), a piece of a secret (the broker quotes
// no bytes of a malformed answer to a credentialed request, http-broker.ts), and transformations no encoder makes.

import type { RecentSignatures } from './recent-signatures.ts';
import { base64Pieces, holdsAnother, MIN_REDACTED_LENGTH, type SpelledForm, spelledForms } from './secret-forms.ts';

export const REDACTED = '[REDACTED]';

/** Where a secret is, as [start, end) offsets into the text. */
type Range = [number, number];

export class SecretRedactor {
  readonly #forms: readonly SpelledForm[];
  readonly #literals: string[];
  readonly #recent: RecentSignatures | undefined;

  /**
   * `secrets`: the credential's own values, found in every spelling above; `requestSecrets`: this request's one-time
   * values, found as sent (and in base64); `recent`: the signatures attached lately.
   */
  constructor(secrets: readonly string[], requestSecrets: readonly string[] = [], recent?: RecentSignatures) {
    this.#forms = spelledForms(secrets);
    const literals = [...new Set(requestSecrets.filter((s) => s.length >= MIN_REDACTED_LENGTH))];
    // Shortest first: a value that holds an absent one (an Authorization holding its signature) is absent too.
    this.#literals = [
      ...new Set(literals.flatMap((s) => [s, ...(holdsAnother(s, literals) ? [] : base64Pieces(s))])),
    ].sort((a, b) => a.length - b.length);
    this.#recent = recent !== undefined && recent.size > 0 ? recent : undefined;
  }

  get empty(): boolean {
    return this.#forms.length === 0 && this.#literals.length === 0 && this.#recent === undefined;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    // One scan of all names and values (NUL apart: no secret holds one, nor does any spelling of one) rules out
    // almost every answer's headers at once.
    const all = Object.entries(headers).flat().join('\0');
    if (this.empty || this.#find(all).length === 0) return headers;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[this.text(name)] = this.text(value);
    return out;
  }

  /** The body's chunks with every secret replaced; the same chunks when none occurs. */
  body(chunks: Buffer[]): Buffer[] {
    if (this.empty || chunks.length === 0) return chunks;
    // One buffer, so that a secret split across two chunks is found too.
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    // Almost every answer holds no form, one-time value or signature: told by native searches (and a skipping one for
    // signatures), before any text is made.
    const searched = new Map<string, boolean>();
    const inBytes = (needle: string): boolean => {
      let held = searched.get(needle);
      if (held === undefined) searched.set(needle, (held = body.indexOf(latin1(needle)) !== -1));
      return held;
    };
    const maybe =
      this.#forms.some((f) => (f.runs.length === 0 ? inBytes(f.text) : f.runs.every(inBytes))) ||
      this.#literals.some(inBytes) ||
      this.#recent?.mayBeIn(body) === true;
    if (!maybe) return chunks;
    // Read as latin1, one character a byte: offsets in the text are offsets in the body.
    const text = body.toString('latin1');
    const ranges = this.#find(text, body);
    if (ranges.length === 0) return chunks;
    const parts: Buffer[] = [];
    let from = 0;
    for (const [start, end] of ranges) {
      parts.push(body.subarray(from, start), Buffer.from(REDACTED));
      from = end;
    }
    parts.push(body.subarray(from));
    return [Buffer.concat(parts)];
  }

  /** `value` with every secret replaced (a header, an error message). */
  text(value: string): string {
    if (this.empty) return value;
    const ranges = this.#find(value);
    if (ranges.length === 0) return value;
    let out = '';
    let from = 0;
    for (const [start, end] of ranges) {
      out += value.slice(from, start) + REDACTED;
      from = end;
    }
    return out + value.slice(from);
  }

  // Every secret in `text`, as ranges in order that do not overlap (where two do, the one starting first, or the
  // longer of two starting together, wins).
  #find(text: string, bytes?: Uint8Array): Range[] {
    const found: Range[] = [];
    const absent: string[] = [];
    for (const literal of this.#literals) {
      if (absent.some((a) => literal.includes(a)) || !findLiteral(text, literal, found)) absent.push(literal);
    }
    // Forms share runs (the base64 pieces of one alignment in both alphabets): each looked for once.
    const runs = new Map<string, boolean>();
    const holds = (run: string): boolean => {
      let held = runs.get(run);
      if (held === undefined) runs.set(run, (held = text.includes(run)));
      return held;
    };
    for (const form of this.#forms) findForm(text, form, holds, found);
    if (bytes !== undefined) this.#recent?.findInBytes(bytes, text, found);
    else this.#recent?.find(text, found);
    if (found.length <= 1) return found;
    found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const merged: Range[] = [found[0] as Range];
    for (const range of found) {
      const last = merged[merged.length - 1] as Range;
      if (range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
      else merged.push(range);
    }
    return merged;
  }
}

// Needles as bytes, made once: Buffer.indexOf would encode a string needle on every call.
const needles = new Map<string, Buffer>();
function latin1(needle: string): Buffer {
  let bytes = needles.get(needle);
  if (bytes === undefined) {
    if (needles.size >= 4096) needles.clear();
    needles.set(needle, (bytes = Buffer.from(needle, 'latin1')));
  }
  return bytes;
}

/** Adds where `literal` is in `text`; whether it is anywhere. */
function findLiteral(text: string, literal: string, found: Range[]): boolean {
  let at = text.indexOf(literal);
  if (at === -1) return false;
  for (; at !== -1; at = text.indexOf(literal, at + literal.length)) found.push([at, at + literal.length]);
  return true;
}

// The form's leading characters that are not letters or digits are checked behind each match of the rest; past this
// many checks in one text (an answer made of the rest repeated), a match counts without them, which redacts more than
// needed rather than let one answer cost a check per few bytes.
const MAX_PREFIX_CHECKS = 10_000;

function findForm(text: string, form: SpelledForm, holds: (run: string) => boolean, found: Range[]): void {
  if (form.rest === undefined) {
    findLiteral(text, form.text, found);
    return;
  }
  if (!form.runs.every(holds)) return;
  const rest = form.rest;
  rest.lastIndex = 0;
  let checks = 0;
  for (let match = rest.exec(text); match !== null; match = rest.exec(text)) {
    let start = match.index;
    if (form.prefix !== undefined && checks++ < MAX_PREFIX_CHECKS) {
      const before = form.prefix.exec(text.slice(Math.max(0, start - form.maxPrefixLength), start));
      if (before === null) {
        // Not this form here: the rest may still start inside what matched.
        rest.lastIndex = match.index + 1;
        continue;
      }
      start -= before[0].length;
    }
    found.push([start, match.index + match[0].length]);
  }
}
