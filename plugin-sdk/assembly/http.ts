// HTTP to the cloud API through the host (ccm_http). The host enforces the plugin's allow-list, follows redirects only
// within it, caps response sizes and attaches brokered credentials; the plugin never sees those.
import { HttpError, HttpErrorCode, HttpRequest } from "./abi/types.generated";
import { internal, PluginError, retryAfter } from "./errors";
import { ccm_http } from "./host/imports";
import { fromBlock, toBlock } from "./host/io";
import { JsonReader } from "./json/reader";
import { JsonValue } from "./json/value";
import { JsonWriter } from "./json/writer";

/** The outcome of one request: a response (any status), or `error` when no response was had. */
export class HttpResult {
  method: string = "";
  url: string = "";
  status: i32 = 0;
  /** Response headers, names in lower case; repeated headers joined with ", ". */
  headers: Map<string, string> = new Map();
  body: string = "";
  /** Why there is no response: code is one of HttpErrorCode (Forbidden, Timeout, TooLarge, Network). */
  error: HttpError | null = null;

  /** A response with a 2xx status. */
  get ok(): bool {
    return this.error === null && this.status >= 200 && this.status < 300;
  }

  /** A response header by name (any case); "" when absent. */
  header(name: string): string {
    const key = name.toLowerCase();
    return this.headers.has(key) ? this.headers.get(key) : "";
  }

  /** The body parsed as JSON; null when it is not JSON (JsonValue.lastError() says why). */
  json(): JsonValue | null {
    return JsonValue.parse(this.body);
  }

  /**
   * This result as a provider error: Retry for 429/503 with a Retry-After in seconds, Internal otherwise, the message
   * naming the request and what went wrong. Use it for the cases a provider has no better answer for.
   */
  toPluginError(): PluginError {
    const what = this.method + " " + this.url + ": ";
    const e = this.error;
    if (e !== null) return internal(what + e.code + ": " + e.message);
    if (this.status == 429 || this.status == 503) {
      const after = parseInt(this.header("retry-after"));
      if (after > 0) return retryAfter(after, what + "status " + this.status.toString());
    }
    const snippet = this.body.length > 200 ? this.body.substring(0, 200) + "..." : this.body;
    return internal(what + "status " + this.status.toString() + (snippet.length > 0 ? ": " + snippet : ""));
  }
}

/** Sends one request as it is. */
export function send(req: HttpRequest): HttpResult {
  const w = new JsonWriter(128 + req.body.length);
  req.encode(w);
  const block = toBlock(w);
  const answer = fromBlock(ccm_http(block.offset));
  block.free();
  const result = decodeAnswer(answer);
  result.method = req.method;
  result.url = req.url;
  return result;
}

// The host answers {status, headers, body} or {error: {code, message}}.
function decodeAnswer(bytes: Uint8Array): HttpResult {
  const res = new HttpResult();
  const r = new JsonReader(bytes);
  if (r.beginObject()) {
    let k = r.nextKey();
    while (k !== null) {
      if (k == "status") res.status = r.readI32();
      else if (k == "headers") res.headers = r.readMap();
      else if (k == "body") res.body = r.readString();
      else if (k == "error") res.error = HttpError.decode(r);
      else r.skip();
      if (r.failed) r.prefix("." + k!);
      k = r.nextKey();
    }
  }
  r.finish();
  const e = r.error;
  if (e !== null) {
    const err = new HttpError();
    err.code = HttpErrorCode.Network;
    err.message = "malformed answer from ccm_http: answer" + e;
    res.error = err;
  }
  return res;
}

/**
 * A client for one API: a base URL, default headers and a timeout. Paths are appended to the base URL as they are.
 *
 *   const api = new HttpClient("https://api.example.com/v1").withHeader("accept", "application/json");
 *   const res = api.get("/instances/" + id);
 *   if (!res.ok) return res.toPluginError();
 */
export class HttpClient {
  baseUrl: string;
  headers: Map<string, string> = new Map();
  /** Per request; 0 means the host's default. */
  timeoutMs: i32 = 0;

  constructor(baseUrl: string = "") {
    this.baseUrl = baseUrl;
  }

  withHeader(name: string, value: string): HttpClient {
    this.headers.set(name, value);
    return this;
  }

  withTimeout(ms: i32): HttpClient {
    this.timeoutMs = ms;
    return this;
  }

  request(method: string, path: string, body: string = "", headers: Map<string, string> | null = null): HttpResult {
    const req = new HttpRequest();
    req.method = method;
    req.url = this.baseUrl + path;
    req.body = body;
    req.timeoutMs = this.timeoutMs;
    const defaults = this.headers.keys();
    for (let i = 0; i < defaults.length; i++) req.headers.set(defaults[i], this.headers.get(defaults[i]));
    if (headers !== null) {
      const extra = headers.keys();
      for (let i = 0; i < extra.length; i++) req.headers.set(extra[i], headers.get(extra[i]));
    }
    return send(req);
  }

  get(path: string): HttpResult {
    return this.request("GET", path);
  }

  delete(path: string): HttpResult {
    return this.request("DELETE", path);
  }

  /** POST with a JSON body (content-type application/json). */
  post(path: string, body: JsonValue): HttpResult {
    return this.request("POST", path, body.toString(), jsonContent());
  }

  put(path: string, body: JsonValue): HttpResult {
    return this.request("PUT", path, body.toString(), jsonContent());
  }

  patch(path: string, body: JsonValue): HttpResult {
    return this.request("PATCH", path, body.toString(), jsonContent());
  }
}

function jsonContent(): Map<string, string> {
  const m = new Map<string, string>();
  m.set("content-type", "application/json");
  return m;
}
