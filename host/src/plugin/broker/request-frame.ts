// The request frame of ccm_http_bytes (http-frame.ts) as the main thread reads it: the head parsed and checked against
// the ABI's HttpRequest (without its body), the body a view of the frame's bytes. The head is bounded before it is
// parsed (MAX_HEAD_BYTES, MAX_JSON_DEPTH), so that no frame a plugin makes holds the main thread.
import { validateValue, type HttpRequest } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { BrokerError } from './broker-error.ts';
import { jsonNestsDeeper, MAX_HEAD_BYTES, MAX_JSON_DEPTH, splitFrame } from './http-frame.ts';

/** What a request carries besides its body. */
export type RequestHead = Omit<HttpRequest, 'body'>;

// One decoder for every request: it refuses what is not UTF-8 instead of replacing it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The head and body of a ccm_http_bytes request; the body is a view into `bytes`. Throws BrokerError (Network). */
export function parseRequestFrame(bytes: Uint8Array): { head: RequestHead; body: Uint8Array } {
  const frame = splitFrame(bytes);
  if (typeof frame === 'string') throw malformed(frame);
  if (frame.head.byteLength > MAX_HEAD_BYTES) {
    throw malformed(`its head of ${frame.head.byteLength} bytes is larger than the ${MAX_HEAD_BYTES} the host reads`);
  }
  if (jsonNestsDeeper(frame.head, MAX_JSON_DEPTH))
    throw malformed(`its head nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(frame.head));
  } catch (err) {
    throw new BrokerError('Network', `ccm_http_bytes request head is not UTF-8 JSON: ${errorMessage(err)}`);
  }
  const head = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  if (head !== undefined && Object.hasOwn(head, 'body')) {
    // Refused rather than ignored: a plugin that put its body there would otherwise send an empty one.
    throw malformed('the body goes after the head, not in it');
  }
  // The head is an HttpRequest without its body: checked as one with an empty body.
  const checked = validateValue('HttpRequest', head === undefined ? value : { ...head, body: '' }, 'head');
  if (!checked.ok) throw malformed(checked.error);
  return { head: checked.value, body: frame.body };
}

function malformed(problem: string): BrokerError {
  return new BrokerError('Network', `malformed ccm_http_bytes request: ${problem}`);
}
