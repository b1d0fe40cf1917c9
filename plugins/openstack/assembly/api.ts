// Nova, Neutron and Octavia over JSON. The plugin sends no credentials: the host attaches the Keystone token to every
// request to the catalog's endpoints. Errors keep OpenStack's own message (Octavia's faultstring, Neutron's
// NeutronError, Nova's {"itemNotFound": {"message"}}); 404 is an answer callers read, 409 (Octavia's "immutable"
// while a load balancer is PENDING_*), 429 and 503 ask the controller to retry.
import { HttpClient, HttpResult, internal, JsonValue, JsonWriter, PluginError, retryAfter } from "@wasm-ccm/plugin-sdk";
import { Endpoints } from "./catalog";

export class Answer {
  /** The JSON body of a 2xx answer (null for 204 and other bodiless ones). */
  doc: JsonValue | null = null;
  status: i32 = 0;
  error: PluginError | null = null;

  get ok(): bool {
    return this.error === null;
  }

  /** A 404: the thing asked for does not exist. */
  get notFound(): bool {
    return this.status == 404;
  }
}

export class Api {
  compute: HttpClient;
  network: HttpClient;
  lb: HttpClient;
  /** Octavia without the API version, where its versions are listed. */
  lbRoot: HttpClient;

  constructor(endpoints: Endpoints, timeoutMs: i32) {
    this.compute = client(endpoints.compute, timeoutMs);
    this.network = client(endpoints.network, timeoutMs);
    this.lb = client(endpoints.loadBalancer, timeoutMs);
    this.lbRoot = client(endpoints.loadBalancerRoot, timeoutMs);
  }
}

function client(url: string, timeoutMs: i32): HttpClient {
  return new HttpClient(url).withHeader("accept", "application/json").withTimeout(timeoutMs);
}

export function get(c: HttpClient, path: string): Answer {
  return answerOf(c.get(path));
}

export function del(c: HttpClient, path: string): Answer {
  return answerOf(c.delete(path));
}

export function post(c: HttpClient, path: string, body: JsonValue): Answer {
  return answerOf(c.post(path, body));
}

export function put(c: HttpClient, path: string, body: JsonValue): Answer {
  return answerOf(c.put(path, body));
}

/** PUT of a body already written as UTF-8 JSON (member lists can be long). */
export function putJson(c: HttpClient, path: string, w: JsonWriter): Answer {
  return answerOf(c.jsonRequest("PUT", path, w.view()));
}

function answerOf(res: HttpResult): Answer {
  const out = new Answer();
  out.status = res.status;
  const what = res.method + " " + res.url;
  if (res.error !== null) {
    out.error = res.toPluginError();
    return out;
  }
  if (res.ok) {
    if (res.bodyBytes.length == 0) return out;
    out.doc = res.json();
    // Another server's page (a proxy, a misrouted endpoint) read as an empty list would say "no such server", and
    // the lifecycle controller deletes Nodes on that.
    if (out.doc === null) out.error = internal(what + ": the answer is not JSON");
    return out;
  }
  const text = what + ": " + res.status.toString() + " " + messageOf(res);
  if (res.status == 409 || res.status == 429 || res.status == 503) {
    const after = parseInt(res.header("retry-after"));
    out.error = retryAfter(after > 0 ? <i32>after : 5, text);
  } else {
    out.error = internal(text);
  }
  return out;
}

/** OpenStack's explanation in an error answer, whatever the service's shape; a snippet of the body otherwise. */
function messageOf(res: HttpResult): string {
  const doc = res.json();
  if (doc !== null) {
    if (doc.has("faultstring")) return doc.get("faultstring").asString();
    if (doc.has("NeutronError")) return doc.get("NeutronError").get("message").asString();
    const keys = doc.keys();
    for (let i = 0; i < keys.length; i++) {
      const message = doc.get(keys[i]).get("message").asString();
      if (message != "") return message;
    }
  }
  const body = res.body;
  return body.length > 200 ? body.substring(0, 200) + "..." : body;
}
