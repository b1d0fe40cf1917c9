// How the fuzzer judges one request's two outcomes: agreement (same status, headers and body, or both failed), a
// divergence on the allow-list (a place where Http1Pool is stricter than node:http on purpose, by RFC), or an
// unexplained divergence. Also whether an answer carries bytes the server sent for another request.
import type { FuzzCase } from './cases.ts';
import type { Outcome } from './clients.ts';

export interface AllowedDivergence {
  rule: string;
  rfc: string;
  why: string;
}

/** Where Http1Pool refuses (by its ResponseParseError reason) what node:http accepts. The module README lists these. */
export const STRICTER_ON_PURPOSE: Record<string, AllowedDivergence> = {
  'transfer-coding': {
    rule: 'transfer-coding',
    rfc: 'RFC 9112 §6.1, RFC 9110 §10.1.4',
    why: 'only one final "chunked" is taken: the client sends no TE, so no other coding is acceptable; node reads to the close, or hands over gzip-coded bytes undecoded',
  },
  'unexpected-data': {
    rule: 'unexpected-data',
    rfc: 'RFC 9112 §9.3.2, §11.1',
    why: 'bytes past the end of a response fail its exchange (no request is outstanding for them: the server answered twice, or its framing lies); node hands over the first response and drops the connection',
  },
  'switching-protocols': {
    rule: 'switching-protocols',
    rfc: 'RFC 9110 §15.2.2, §7.8',
    why: 'a 101 answers only a request with Upgrade, which this client never sends; node hands it over as a response',
  },
  'http-version': {
    rule: 'http-version',
    rfc: 'RFC 9112 §2.3',
    why: 'only HTTP/1.0 and HTTP/1.1 status lines are read as HTTP/1.x framing; node takes any HTTP/d.d',
  },
  'status-code': {
    rule: 'status-code',
    rfc: 'RFC 9110 §15',
    why: 'a status code outside 100..599 is invalid; node takes any three digits',
  },
  'leading-empty-line': {
    rule: 'leading-empty-line',
    rfc: 'RFC 9112 §2.2',
    why: 'a CR or LF before the status line is refused (what a server that miscounted a body leaves); node skips it',
  },
  'trailer-too-large': {
    rule: 'trailer-too-large',
    rfc: 'RFC 9110 §5.4, RFC 9112 §7.1.2',
    why: 'a trailer section over 16 KiB is refused (its fields are dropped anyway); node takes trailers of any size',
  },
  'reason-phrase': {
    rule: 'reason-phrase',
    rfc: 'RFC 9112 §4',
    why: 'a reason phrase is HTAB, SP, VCHAR and obs-text only; node takes control characters and DEL in it',
  },
  'chunk-extension': {
    rule: 'chunk-extension',
    rfc: 'RFC 9112 §7.1.1',
    why: 'a chunk extension is ";" name [ "=" token / quoted-string ]; node takes an empty name',
  },
};

/**
 * A request node sent on a keep-alive connection the server had already closed (after an answer Http1Pool refused,
 * or at its idle close): node fails it; Http1Pool either had opened a new connection or sent the GET again.
 */
export const CLOSED_KEEP_ALIVE: AllowedDivergence = {
  rule: 'closed-keep-alive-connection',
  rfc: 'RFC 9112 §9.3.1',
  why: 'an idempotent request whose reused connection closed before any byte of an answer is sent once more; node reports ECONNRESET',
};

export type Verdict = { kind: 'agree' } | { kind: 'allowed'; rule: string } | { kind: 'diverge'; why: string };

/** `nodeUnanswered`: the server never wrote an answer to node's request (it arrived on a closed connection). */
export function judge(ours: Outcome, node: Outcome, nodeUnanswered: boolean): Verdict {
  if (ours.ok && node.ok) {
    if (ours.status !== node.status) return { kind: 'diverge', why: 'status' };
    if (JSON.stringify(ours.headers) !== JSON.stringify(node.headers)) return { kind: 'diverge', why: 'headers' };
    if (!ours.body.equals(node.body)) return { kind: 'diverge', why: 'body' };
    return { kind: 'agree' };
  }
  if (!ours.ok && !node.ok) return { kind: 'agree' };
  if (!ours.ok) {
    const allowed = ours.reason !== undefined ? STRICTER_ON_PURPOSE[ours.reason] : undefined;
    return allowed ? { kind: 'allowed', rule: allowed.rule } : { kind: 'diverge', why: `ours failed: ${ours.error}` };
  }
  if (nodeUnanswered) return { kind: 'allowed', rule: CLOSED_KEEP_ALIVE.rule };
  return { kind: 'diverge', why: `node failed: ${(node as { error: string }).error}` };
}

/** Whether request k's answer carries the tag of another request of the case (bytes sent for that one). */
export function crossDelivered(c: FuzzCase, k: number, outcome: Outcome): boolean {
  if (!outcome.ok) return false;
  const text = outcome.body.toString('latin1') + JSON.stringify(outcome.headers);
  return c.requests.some((r, j) => j !== k && text.includes(r.tag));
}
