// A response's head (status line and field lines, RFC 9112 §4 and §5) and how its body is framed (RFC 9112 §6).
// Strict on purpose: anything another parser could read differently is refused, since a client that guesses hands
// the next request the rest of this answer.
import { ResponseParseError } from './errors.ts';

/** Lower-case names; a repeated field is an array of its values in order. Has no prototype: any name is data. */
export type ResponseHeaders = Record<string, string | string[]>;

export interface ResponseHead {
  statusCode: number;
  headers: ResponseHeaders;
}

export interface ParsedHead extends ResponseHead {
  http11: boolean;
}

/** How the body after a head ends. */
export type Framing =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  /** Read until the server closes the connection (RFC 9112 §6.3 item 8). */
  | { kind: 'close' };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// field-value and reason-phrase octets (RFC 9110 §5.5, RFC 9112 §4): HTAB, SP, VCHAR, obs-text. NUL, a bare CR or
// LF, other controls and DEL are refused.
const NOT_FIELD_OCTET = /[^\t\x20-\x7e\x80-\xff]/;
const STATUS_LINE = /^HTTP\/(\d\.\d) (\d\d\d)(?:$| )/;
const DIGITS = /^\d{1,15}$/;

/** Parses a head (without its final CRLF CRLF), as latin1 text. */
export function parseHead(text: string): ParsedHead {
  const lines = text.split('\r\n');
  const statusLine = lines[0] as string;
  const status = STATUS_LINE.exec(statusLine);
  if (!status) {
    // A CRLF before an answer is what a server that miscounted the previous body leaves (RFC 9112 §2.2 lets a
    // server skip empty lines before a request; a client that does not pipeline has no reason to).
    const reason = statusLine === '' || /^[\r\n]/.test(statusLine) ? 'leading-empty-line' : 'status-line';
    throw new ResponseParseError(reason, `malformed status line ${JSON.stringify(statusLine.slice(0, 80))}`);
  }
  if (status[1] !== '1.1' && status[1] !== '1.0') {
    throw new ResponseParseError('http-version', `unsupported version HTTP/${status[1]}`);
  }
  const statusCode = Number(status[2]);
  // RFC 9110 §15: values outside 100..599 are invalid.
  if (statusCode < 100 || statusCode > 599) {
    throw new ResponseParseError('status-code', `invalid status code ${status[2]}`);
  }
  if (NOT_FIELD_OCTET.test(statusLine)) {
    throw new ResponseParseError('reason-phrase', `invalid octet in the reason phrase of ${status[0]}`);
  }
  const headers = Object.create(null) as ResponseHeaders;
  for (let i = 1; i < lines.length; i++) addField(headers, lines[i] as string);
  return { statusCode, http11: status[1] === '1.1', headers };
}

/** Adds one field line (`name: value`) to `headers`; also checks trailer lines, which are not kept. */
export function addField(headers: ResponseHeaders, line: string): void {
  const colon = line.indexOf(':');
  // No whitespace between name and colon (RFC 9112 §5.1); a line starting with whitespace is obs-fold (§5.2).
  if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) {
    throw new ResponseParseError('header-line', `malformed header line ${JSON.stringify(line.slice(0, 80))}`);
  }
  const value = trimOws(line, colon + 1);
  if (NOT_FIELD_OCTET.test(value)) {
    throw new ResponseParseError(
      'field-value',
      `invalid octet in the value of ${JSON.stringify(line.slice(0, colon))}`,
    );
  }
  const name = line.slice(0, colon).toLowerCase();
  const prior = headers[name];
  if (prior === undefined) headers[name] = value;
  else if (Array.isArray(prior)) prior.push(value);
  else headers[name] = [prior, value];
}

/** The text from `from` without the optional whitespace (SP, HTAB) around a field value. */
function trimOws(line: string, from: number): string {
  let start = from;
  let end = line.length;
  while (start < end && isOws(line.charCodeAt(start))) start++;
  while (end > start && isOws(line.charCodeAt(end - 1))) end--;
  return line.slice(start, end);
}

const isOws = (c: number): boolean => c === 0x20 || c === 0x09;

/**
 * How the body of a final (>= 200) answer to `method` is framed (RFC 9112 §6.3). Content-Length with
 * Transfer-Encoding is refused whatever the status (item 3: a sign of smuggling); so is any transfer coding but one
 * `chunked` (§6.1: this client sends no TE, so no other coding is acceptable), and a Content-Length that is
 * not one decimal number (item 5).
 */
export function framingOf(method: string, head: ParsedHead): Framing {
  const { statusCode, headers } = head;
  const te = headers['transfer-encoding'];
  const cl = headers['content-length'];
  if (cl !== undefined && (Array.isArray(cl) || !DIGITS.test(cl))) {
    throw new ResponseParseError('content-length', `invalid content-length ${JSON.stringify(cl)}`);
  }
  if (te !== undefined && cl !== undefined) {
    throw new ResponseParseError(
      'content-length-with-transfer-encoding',
      'a response with both Content-Length and Transfer-Encoding',
    );
  }
  if (method === 'HEAD' || statusCode === 204 || statusCode === 304) return { kind: 'none' };
  if (te !== undefined) {
    // Exactly one coding, chunked: no empty list element either (llhttp refuses those too).
    const codings = (Array.isArray(te) ? te.join(',') : te).split(',');
    if (codings.length !== 1 || trimOws(codings[0] as string, 0).toLowerCase() !== 'chunked') {
      throw new ResponseParseError('transfer-coding', `unsupported transfer-encoding ${JSON.stringify(te)}`);
    }
    return { kind: 'chunked' };
  }
  if (cl !== undefined) return { kind: 'length', length: Number(cl) };
  return { kind: 'close' };
}

/**
 * Whether the connection may carry another request after this answer (RFC 9112 §9.3). A Transfer-Encoding in an
 * HTTP/1.0 answer is faulty framing: the message is read, then the connection closed (§6.1).
 */
export function keepAliveOf(head: ParsedHead, framing: Framing): boolean {
  if (framing.kind === 'close') return false;
  const connection = head.headers.connection;
  const tokens = (Array.isArray(connection) ? connection.join(',') : (connection ?? ''))
    .toLowerCase()
    .split(',')
    .map((t) => trimOws(t, 0));
  if (tokens.includes('close')) return false;
  if (!head.http11) return tokens.includes('keep-alive') && head.headers['transfer-encoding'] === undefined;
  return true;
}
