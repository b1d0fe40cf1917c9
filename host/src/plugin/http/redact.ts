// Brokered secrets never reach the plugin, not even back through an answer: an allowed endpoint that echoes the
// request (a debugging endpoint, a proxy's error page, an API that reflects headers) would otherwise hand the plugin
// the token the host attached. Every exact occurrence of a secret attached to the request is replaced in the
// answer's headers and body before the plugin sees it. The scan runs only for requests that carried a credential.

export const REDACTED = '[REDACTED]';

// Shorter values would match ordinary text and corrupt answers (a one-letter password in every word of a body);
// credentials that short are refused by no API worth protecting anyway, and are documented as not redacted.
export const MIN_REDACTED_LENGTH = 4;

export class SecretRedactor {
  readonly #secrets: string[];
  readonly #needles: Buffer[];

  constructor(secrets: readonly string[]) {
    // Longest first, so that a secret containing another is replaced whole.
    this.#secrets = [...new Set(secrets.filter((s) => s.length >= MIN_REDACTED_LENGTH))].sort(
      (a, b) => b.length - a.length,
    );
    this.#needles = this.#secrets.map((s) => Buffer.from(s, 'utf8'));
  }

  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[this.text(name)] = this.text(value);
    return out;
  }

  /** The body's chunks with every secret replaced; the same chunks when none occurs. */
  body(chunks: Buffer[]): Buffer[] {
    if (this.empty || chunks.length === 0) return chunks;
    // One buffer, so that a secret split across two chunks is found too.
    let body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    let changed = false;
    for (const needle of this.#needles) {
      if (body.indexOf(needle) === -1) continue;
      body = replaceAll(body, needle, Buffer.from(REDACTED));
      changed = true;
    }
    return changed ? [body] : chunks;
  }

  /** `value` with every secret replaced (a header, an error message). */
  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }
}

function replaceAll(body: Buffer, needle: Buffer, replacement: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, from)) {
    parts.push(body.subarray(from, at), replacement);
    from = at + needle.length;
  }
  parts.push(body.subarray(from));
  return Buffer.concat(parts);
}
