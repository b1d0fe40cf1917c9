// What the broker sends for a plugin and what it gives back: the headers a plugin may set, the answer and errors of
// a request that carried a credential (secrets replaced, redact.ts), and the errors a plugin sees.
import { ResponseParseError } from '../../net/http1/errors.ts';
import type { HttpError } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { BrokerError } from './broker-error.ts';
import type { SecretRedactor } from './redact.ts';
import { METHOD_OVERRIDE_HEADERS } from './request-effect.ts';

/**
 * Names the replica behind each request, so a cloud's audit log can tell which CCM replica (and whether the leader)
 * made a change. The value is the identity the replica writes into the Lease's holderIdentity (host name and a
 * random UUID), which anyone who can read the Lease sees already; a server that does not know the header ignores it.
 */
export const REPLICA_IDENTITY_HEADER = 'x-kubernetes-leader-election-identity';

/** A response as it arrived: the body is left in its chunks until the answer is written. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  chunks: Buffer[];
}

// Headers the broker controls: a plugin setting them could smuggle requests or confuse the connection pool.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  // The connection pool does not implement 100-continue: dropped like the others.
  'expect',
  // Set by the broker alone: a plugin must not speak for another replica.
  REPLICA_IDENTITY_HEADER,
]);
// The plugin's headers as sent: lower-case names, without those the broker controls. A method override is refused:
// the lease fence judges a request by its method, which a server honoring the header would not run.
export function requestHeaders(
  method: string,
  url: URL,
  pluginHeaders: Record<string, string>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(pluginHeaders)) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) continue;
    if (METHOD_OVERRIDE_HEADERS.has(lower)) {
      throw new BrokerError(
        'Forbidden',
        `${method} ${url.host}: the ${lower} header is refused (a server honoring it would run another method than ${method})`,
      );
    }
    headers[lower] = value;
  }
  return headers;
}

// The answer to a request that carried a credential, with its secrets replaced (redact.ts). The request asked for
// no compression; a compressed answer is refused, since the redactor cannot see into it.
export function redacted(url: URL, answer: RawResponse, redactor: SecretRedactor): RawResponse {
  if (redactor.empty) return answer;
  const coding = answer.headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') {
    throw new BrokerError(
      'Network',
      `answer from ${url.host} has content-encoding ${coding.slice(0, 40)}, which the host cannot check for the secrets it attached (it asked for identity)`,
    );
  }
  return { status: answer.status, headers: redactor.headers(answer.headers), chunks: redactor.body(answer.chunks) };
}

// An error of a request that carried a credential, with its secrets replaced in the message.
export function redactedError(err: unknown, redactor: SecretRedactor): unknown {
  if (!(err instanceof Error)) return err;
  const message = redactor.text(err.message);
  if (message === err.message) return err;
  return new BrokerError(err instanceof BrokerError ? err.code : 'Network', message);
}

// A wait (for a login, a signature) ends at the request's abort: the login goes on for the requests that still wait.
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new BrokerError('Network', 'aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new BrokerError('Network', 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function brokerError(err: unknown): HttpError {
  return err instanceof BrokerError
    ? { code: err.code, message: err.message }
    : { code: 'Network', message: errorMessage(err) };
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function networkError(url: URL, err: unknown, credentialed: boolean): BrokerError {
  if (err instanceof BrokerError) return err;
  // A parse error quotes up to 80 bytes of the answer, which may hold part of a secret the server echoed: a part is
  // no exact match for the redactor, so the answer to a credentialed request is not quoted at all.
  if (credentialed && err instanceof ResponseParseError) {
    return new BrokerError(
      'Network',
      `request to ${url.host} failed: the answer is malformed (${err.reason}); it is not quoted, as it may echo a secret`,
    );
  }
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  // System and TLS codes (ECONNREFUSED, CERT_HAS_EXPIRED) say it best; the HTTP/1.1 client's own (HTTP1_PARSE_ERROR)
  // say less than their messages.
  const detail = code !== undefined && !code.startsWith('HTTP1_') ? code : errorMessage(err);
  return new BrokerError('Network', `request to ${url.host} failed: ${detail}`);
}
