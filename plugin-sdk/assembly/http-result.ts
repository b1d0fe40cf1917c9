// The outcome of one HTTP request (http.ts sends it, http-frame.ts decodes the host's answer into it): the response
// with its body as bytes and the ways a provider reads it, or why there was none.
import { HttpError } from "./abi/types.generated";
import { internal, PluginError, retryAfter } from "./errors";
import { decodeUtf8 } from "./json/scan";
import { JsonValue } from "./json/value";
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
