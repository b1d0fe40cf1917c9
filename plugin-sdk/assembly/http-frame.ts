// The wire form of ccm_http_bytes (ABI 1.3; ABI.md, "Host functions"). A request and its answer are both
// [u32 little-endian H][H bytes of JSON head][body bytes]: the head is the request without its body
// ({method, url, headers, timeoutMs}), or {status, headers} / {error: {code, message}} for the answer. Both move
// through the plugin's own memory in one host call each way (no Extism kernel blocks, which copy 8 bytes per call).
import { HttpError, HttpErrorCode, HttpRequest } from "./abi/types.generated";
import { ccm_http_answer_read, ccm_http_bytes } from "./host/imports";
import { HttpResult } from "./http-result";
import { JsonReader } from "./json/reader";
import { JsonWriter } from "./json/writer";

/** Sends `req` with `body` and returns the host's answer: a response, or `error` when there was none. */
export function exchange(req: HttpRequest, body: Uint8Array): HttpResult {
  const w = new JsonWriter(256);
  w.beginObject();
  w.key("method");
  w.string(req.method);
  w.key("url");
  w.string(req.url);
  w.key("headers");
  w.map(req.headers);
  w.key("timeoutMs");
  w.i32(req.timeoutMs);
  w.endObject();
  const head = w.view();
  const frame = new Uint8Array(4 + head.length + body.length);
  store<u32>(frame.dataStart, <u32>head.length);
  memory.copy(frame.dataStart + 4, head.dataStart, <usize>head.length);
  memory.copy(frame.dataStart + 4 + <usize>head.length, body.dataStart, <usize>body.length);

  const size = ccm_http_bytes(frame.dataStart, frame.length);
  const answer = new Uint8Array(max(size, 0));
  if (size > 0) ccm_http_answer_read(answer.dataStart, size);
  return decodeAnswer(answer);
}

function decodeAnswer(answer: Uint8Array): HttpResult {
  const res = new HttpResult();
  if (answer.length < 4) return malformed(res, "it has " + answer.length.toString() + " bytes, no head length");
  const headLength = load<u32>(answer.dataStart);
  if (<u64>headLength > <u64>(answer.length - 4)) {
    return malformed(res, "its head length " + headLength.toString() + " runs past its end");
  }
  const headEnd = 4 + <i32>headLength;
  const r = new JsonReader(answer.subarray(4, headEnd));
  if (r.beginObject()) {
    let k = r.nextKey();
    while (k !== null) {
      if (k == "status") res.status = r.readI32();
      else if (k == "headers") res.headers = r.readMap();
      else if (k == "error") res.error = HttpError.decode(r);
      else r.skip();
      if (r.failed) r.prefix("." + k);
      k = r.nextKey();
    }
  }
  r.finish();
  const e = r.error;
  if (e !== null) return malformed(res, "head" + e);
  res.bodyBytes = answer.subarray(headEnd);
  return res;
}

function malformed(res: HttpResult, why: string): HttpResult {
  const err = new HttpError();
  err.code = HttpErrorCode.Network;
  err.message = "malformed answer from ccm_http_bytes: " + why;
  res.error = err;
  return res;
}
