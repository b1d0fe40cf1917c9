// HTTP to the cloud API through the host (ccm_http_bytes, ABI 1.3). The host enforces the plugin's allow-list, follows
// redirects only within it, caps response sizes and attaches brokered credentials; the plugin never sees those.
// Bodies travel as bytes (http-frame.ts): a JSON body is written once as UTF-8 and a response is parsed from its bytes,
// where ccm_http (ABI 1.0) JSON-escaped both and widened the response to UTF-16 on the way.
import { HttpRequest } from "./abi/types.generated";
import { exchange } from "./http-frame";
import { HttpResult } from "./http-result";
import { JsonValue } from "./json/value";
import { JsonWriter } from "./json/writer";
import { FORM_CONTENT_TYPE, QueryRequest } from "./query-protocol";

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
