// The devcloud REST API through the SDK's HTTP client (the host adds the bearer token; the plugin never has it), and
// the mapping of devcloud failures to provider errors: 429 -> Retry after Retry-After, everything else Internal with
// devcloud's own code and message. Callers handle the statuses that mean something to them (404, 409) first.
import { HttpClient, HttpResult, JsonKind, JsonValue, PluginError, internal, retryAfter } from "@wasm-ccm/plugin-sdk";

const PAGE = "1000";

export class Api {
  client: HttpClient;

  constructor(url: string, timeoutMs: i32) {
    this.client = new HttpClient(url + "/v1").withHeader("accept", "application/json").withTimeout(timeoutMs);
  }

  get(path: string): HttpResult {
    return this.client.get(path);
  }

  post(path: string, body: JsonValue): HttpResult {
    return this.client.post(path, body);
  }

  put(path: string, body: JsonValue): HttpResult {
    return this.client.put(path, body);
  }

  /** A request with a JSON body already serialized (a JsonWriter's bytes). */
  sendJson(method: string, path: string, json: Uint8Array): HttpResult {
    return this.client.jsonRequest(method, path, json);
  }

  delete(path: string): HttpResult {
    return this.client.delete(path);
  }

  /** Every item of a list endpoint, following nextPageToken. `query` is "" or "a=b&c=d" (already encoded). */
  listAll(path: string, query: string, what: string): ListResult {
    const out = new ListResult();
    let token = "";
    for (let page = 0; page < 10000; page++) {
      let q = "limit=" + PAGE;
      if (query.length > 0) q += "&" + query;
      if (token.length > 0) q += "&pageToken=" + encodeURIComponent(token);
      const res = this.get(path + "?" + q);
      if (!res.ok) {
        out.error = cloudError(what, res);
        return out;
      }
      const doc = res.json();
      const items = doc === null ? JsonValue.ofNull() : doc.get("items");
      if (doc === null || items.kind != JsonKind.Array) {
        out.error = internal(what + ": devcloud answered a list that is not {items: [...]}");
        return out;
      }
      for (let i = 0; i < items.length; i++) out.items.push(items.at(i));
      token = doc.get("nextPageToken").asString();
      if (token.length == 0) return out;
    }
    out.error = internal(what + ": too many pages");
    return out;
  }
}

export class ListResult {
  items: JsonValue[] = [];
  error: PluginError | null = null;
}

/** devcloud's error body {"error": {code, message, field}} (fields "" when absent). */
export class CloudFailure {
  code: string = "";
  message: string = "";
  field: string = "";

  static of(res: HttpResult): CloudFailure {
    const f = new CloudFailure();
    const doc = res.json();
    if (doc === null) return f;
    const e = doc.get("error");
    f.code = e.get("code").asString();
    f.message = e.get("message").asString();
    f.field = e.get("field").asString();
    return f;
  }
}

/** `what` failed: Retry for 429 (after Retry-After seconds, at least 1), Internal with devcloud's words otherwise. */
export function cloudError(what: string, res: HttpResult): PluginError {
  const err = res.error;
  if (err !== null) return internal(what + ": " + err.code + ": " + err.message);
  const f = CloudFailure.of(res);
  let text = what + ": devcloud answered " + res.status.toString();
  if (f.code.length > 0) text += " " + f.code;
  if (f.message.length > 0) text += ": " + f.message;
  else if (res.body.length > 0) text += ": " + (res.body.length > 200 ? res.body.substring(0, 200) + "..." : res.body);
  if (res.status == 429) return retryAfter(retryAfterSeconds(res.header("retry-after")), text);
  return internal(text);
}

// Retry-After is whole seconds from devcloud; anything unreadable waits the minimum.
function retryAfterSeconds(header: string): f64 {
  const s = header.trimStart().trimEnd();
  if (s.length == 0 || s.length > 9) return 1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return 1;
  }
  const n = <f64>I32.parseInt(s);
  return n >= 1 ? n : 1;
}

/** A string field of a tag or label map, "" when absent. */
export function tag(obj: JsonValue, mapKey: string, key: string): string {
  return obj.get(mapKey).get(key).asString();
}
