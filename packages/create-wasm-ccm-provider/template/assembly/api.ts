// The cloud's REST API through the SDK's HTTP client. The host attaches the credentials (the plugin never sees
// them) and lets requests reach only the allowed hosts. This template speaks the devcloud API (wasm-ccm's simulated
// cloud): replace the paths and fields with your cloud's, and keep the shape: 404 is "not found", 429 is Retry.
import { HttpClient, HttpResult, JsonValue, PluginError, internal, retryAfter } from "@wasm-ccm/plugin-sdk";

/** A resource looked up by path: `value` when found, null for 404, or `error`. */
export class Found {
  value: JsonValue | null = null;
  error: PluginError | null = null;

  static failed(error: PluginError): Found {
    const f = new Found();
    f.error = error;
    return f;
  }
}

export class Api {
  client: HttpClient;

  constructor(url: string) {
    this.client = new HttpClient(url + "/v1").withHeader("accept", "application/json").withTimeout(5000);
  }

  /** GET `path`; a 404 is a Found without value. */
  find(path: string, what: string): Found {
    const res = this.client.get(path);
    if (res.status == 404 && res.error === null) return new Found();
    if (!res.ok) return Found.failed(cloudError(what, res));
    const f = new Found();
    const doc = res.json();
    if (doc === null) return Found.failed(internal(what + ": the answer is not JSON"));
    f.value = doc;
    return f;
  }
}

/** `what` failed: Retry after Retry-After for 429, Internal with the cloud's own message otherwise. */
export function cloudError(what: string, res: HttpResult): PluginError {
  const err = res.error;
  if (err !== null) return internal(what + ": " + err.code + ": " + err.message);
  const doc = res.json();
  const message = doc === null ? res.body : doc.get("error").get("message").asString();
  const text = what + ": the cloud answered " + res.status.toString() + ": " + message;
  if (res.status == 429) return retryAfter(1, text);
  return internal(text);
}
