// ccm_http's JSON request and answer (ABI 1.0), turned into and out of the ccm_http_bytes frames (http-frame.ts) the
// broker serves. The plugin's worker does it, on the plugin's own thread: the main thread serves every instance, the
// controllers and the watches, and parsing a plugin's megabytes of (nested) JSON or escaping a binary answer into a
// JSON string six times its size there held it for hundreds of milliseconds. So the main thread sees frames only,
// whose heads it bounds (http-frame.ts), and the JSON work is charged to the plugin that asked for it.
// Imported by the worker: keep it free of anything but Buffer and the ABI's validator.
import { validateValue, type HttpError } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { buildFrame, MAX_JSON_DEPTH, jsonNestsDeeper, splitFrame } from './http-frame.ts';

// One decoder for every request: it refuses what is not UTF-8 instead of replacing it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** A ccm_http request as the ccm_http_bytes frame that makes the same request, or the error to answer instead. */
export function frameOfJsonRequest(bytes: Uint8Array): Uint8Array | HttpError {
  if (jsonNestsDeeper(bytes, MAX_JSON_DEPTH)) {
    return { code: 'Network', message: `malformed ccm_http request: it nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(bytes));
  } catch (err) {
    return { code: 'Network', message: `ccm_http request is not UTF-8 JSON: ${errorMessage(err)}` };
  }
  const checked = validateValue('HttpRequest', value);
  if (!checked.ok) return { code: 'Network', message: `malformed ccm_http request: ${checked.error}` };
  const { method, url, headers, body, timeoutMs } = checked.value;
  return buildFrame(JSON.stringify({ method, url, headers, timeoutMs }), [Buffer.from(body, 'utf8')]);
}

/**
 * The ccm_http answer for an answer frame: `{status, headers, body}` with the body as UTF-8 text (a sequence that is
 * not UTF-8 as U+FFFD), or the frame's `{error}`.
 */
export function jsonOfAnswerFrame(frame: Uint8Array): Uint8Array {
  const parts = splitFrame(frame);
  if (typeof parts === 'string') return jsonError('Network', `the host's answer is not a frame: ${parts}`);
  const head = Buffer.from(parts.head.buffer, parts.head.byteOffset, parts.head.byteLength).toString('utf8');
  const answer = JSON.parse(head) as { status?: number; headers?: Record<string, string>; error?: HttpError };
  if (answer.error !== undefined) return encoder.encode(JSON.stringify({ error: answer.error }));
  const body = Buffer.from(parts.body.buffer, parts.body.byteOffset, parts.body.byteLength).toString('utf8');
  return encoder.encode(JSON.stringify({ status: answer.status, headers: answer.headers, body }));
}

/** The JSON `{"error": {code, message}}` answer. */
export function jsonError(code: string, message: string): Uint8Array {
  return encoder.encode(JSON.stringify({ error: { code, message } }));
}
