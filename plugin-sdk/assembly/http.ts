// HTTP to the cloud API through the host (ccm_http_bytes, ABI 1.3). The host enforces the plugin's allow-list, follows
// redirects only within it, caps response sizes and attaches brokered credentials; the plugin never sees those.
// Bodies travel as bytes (http-frame.ts): a JSON body is written once as UTF-8 and a response is parsed from its bytes,
// where ccm_http (ABI 1.0) JSON-escaped both and widened the response to UTF-16 on the way.
import { HttpError, HttpRequest } from "./abi/types.generated";
import { internal, PluginError, retryAfter } from "./errors";
import { exchange } from "./http-frame";
import { decodeUtf8 } from "./json/scan";
import { JsonValue } from "./json/value";
import { JsonWriter } from "./json/writer";
import { FORM_CONTENT_TYPE, QueryRequest } from "./query-protocol";
import { XmlElement } from "./xml/element";

const NO_BYTES = new Uint8Array(0);

/** The outcome of one request: a response (any status), or `error` when no response was had. */
export class HttpResult {
  method: string = "";
  url: string = "";
  status: i32 = 0;
  /** Response headers, names in lower case; repeated headers joined with ", ". */
  headers: Map<string, string> = new Map();
  /** The response body as it came (binary-safe). */
  bodyBytes: Uint8Array = NO_BYTES;
  /** Why there is no response: code is one of HttpErrorCode (Forbidden, Timeout, TooLarge, Network). */
  error: HttpError | null = null;
  private text: string | null = null;

  /** The response body as UTF-8 text (decoded on first use; invalid sequences become U+FFFD). */
  get body(): string {
    let text = this.text;
    if (text === null) {
      const start = this.bodyBytes.dataStart;
      text = decodeUtf8(start, start + <usize>this.bodyBytes.length);
      this.text = text;
    }
    return text;
  }

  set body(text: string) {
    this.bodyBytes = Uint8Array.wrap(String.UTF8.encode(text));
    this.text = text;
  }

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
    return JsonValue.parseBytes(this.bodyBytes);
  }

  /** The body parsed as XML, its root element; null when it is not XML (XmlElement.lastError() says why). */
  xml(): XmlElement | null {
    return XmlElement.parseBytes(this.bodyBytes);
  }

  /**
   * The body's top-level object with only the fields named in `keys` (the others are checked and skipped, not built),
   * or null when the body is not JSON. Cheaper than json() when a large response is needed for a few fields.
   */
  jsonFields(keys: string[]): JsonValue | null {
    return JsonValue.parseFields(this.bodyBytes, keys);
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

/** Sends one request as it is (its body as UTF-8). */
export function send(req: HttpRequest): HttpResult {
  return sendBytes(req, Uint8Array.wrap(String.UTF8.encode(req.body)));
}

/** Sends one request with `body` as its body, byte for byte (`req.body` is not used). */
export function sendBytes(req: HttpRequest, body: Uint8Array): HttpResult {
  const result = exchange(req, body);
  result.method = req.method;
  result.url = req.url;
  return result;
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
    return this.requestBytes(method, path, Uint8Array.wrap(String.UTF8.encode(body)), headers);
  }

  /** A request whose body is `body`, byte for byte. */
  requestBytes(method: string, path: string, body: Uint8Array, headers: Map<string, string> | null = null): HttpResult {
    const req = new HttpRequest();
    req.method = method;
    req.url = this.baseUrl + path;
    req.timeoutMs = this.timeoutMs;
    const defaults = this.headers.keys();
    for (let i = 0; i < defaults.length; i++) req.headers.set(defaults[i], this.headers.get(defaults[i]));
    if (headers !== null) {
      const extra = headers.keys();
      for (let i = 0; i < extra.length; i++) req.headers.set(extra[i], headers.get(extra[i]));
    }
    return sendBytes(req, body);
  }

  get(path: string): HttpResult {
    return this.request("GET", path);
  }

  delete(path: string): HttpResult {
    return this.request("DELETE", path);
  }

  /** A request whose body is JSON already serialized as UTF-8 (say a JsonWriter's view()), as application/json. */
  jsonRequest(method: string, path: string, json: Uint8Array): HttpResult {
    return this.requestBytes(method, path, json, jsonContent());
  }

  /** POST with a JSON body (content-type application/json). */
  post(path: string, body: JsonValue): HttpResult {
    return this.jsonRequest("POST", path, jsonBytes(body));
  }

  put(path: string, body: JsonValue): HttpResult {
    return this.jsonRequest("PUT", path, jsonBytes(body));
  }

  patch(path: string, body: JsonValue): HttpResult {
    return this.jsonRequest("PATCH", path, jsonBytes(body));
  }

  /** POST of an AWS Query-protocol request, form encoded (application/x-www-form-urlencoded). */
  postQuery(path: string, query: QueryRequest): HttpResult {
    const headers = new Map<string, string>();
    headers.set("content-type", FORM_CONTENT_TYPE);
    return this.request("POST", path, query.toString(), headers);
  }
}

// The value's JSON as UTF-8, written once (toString() would build a UTF-16 string only to encode it again).
function jsonBytes(body: JsonValue): Uint8Array {
  const w = new JsonWriter(1024);
  body.write(w);
  return w.view();
}

function jsonContent(): Map<string, string> {
  const m = new Map<string, string>();
  m.set("content-type", "application/json");
  return m;
}
