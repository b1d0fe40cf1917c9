// The devcloud provider's cloud config (JSON), read strictly: a typo in a field name is an error at start-up rather
// than a default silently in force. Credentials are refused outright: the host brokers them (its credentials file),
// so a token in the cloud config is a mistake to report, not a value to use.
import { JsonKind, JsonValue, PluginError, invalid } from "@wasm-ccm/plugin-sdk";
import { isDnsSubdomain, isReservedPrefix } from "./names";

export const DEFAULT_LABEL_PREFIX = "devcloud.example/";
const KNOWN = ["url", "region", "zone", "timeoutMs", "labelPrefix"];
const SECRETS = ["token", "bearerToken", "apiKey", "password", "credentials", "authorization"];

export class Config {
  /** The devcloud server, without a trailing "/" (the API is under `${url}/v1`). */
  url: string = "";
  region: string = "";
  /** Answer of Zones.getZone; "" when not configured. */
  zone: string = "";
  /** Per HTTP request; 0 = the host's default. */
  timeoutMs: i32 = 0;
  /** Instance labels become node labels under this prefix (ends with "/"). */
  labelPrefix: string = DEFAULT_LABEL_PREFIX;
}

export class ConfigResult {
  config: Config = new Config();
  error: PluginError | null = null;
}

function fail(message: string): ConfigResult {
  const r = new ConfigResult();
  r.error = invalid("cloud config: " + message);
  return r;
}

function stringField(doc: JsonValue, key: string, required: bool): string | null {
  const v = doc.get(key);
  if (v.isNull) return required ? null : "";
  if (v.kind != JsonKind.String) return null;
  return v.asString();
}

export function parseConfig(text: string): ConfigResult {
  if (text.trimStart().trimEnd().length == 0)
    return fail('empty; expected JSON like {"url": "http://127.0.0.1:8990", "region": "dc-east-1"}');
  const doc = JsonValue.parse(text);
  if (doc === null) return fail("not JSON: " + JsonValue.lastError());
  if (doc.kind != JsonKind.Object) return fail("expected a JSON object");
  const keys = doc.keys();
  for (let i = 0; i < keys.length; i++) {
    if (SECRETS.includes(keys[i])) {
      return fail(
        '"' + keys[i] + '": credentials never go in the cloud config; give them to the host (credentials file)',
      );
    }
    if (!KNOWN.includes(keys[i])) return fail('unknown field "' + keys[i] + '" (known: ' + KNOWN.join(", ") + ")");
  }
  const r = new ConfigResult();
  const c = r.config;

  const url = stringField(doc, "url", true);
  if (url === null) return fail('"url" is required: the devcloud server, e.g. "http://127.0.0.1:8990"');
  const urlProblem = checkUrl(url);
  if (urlProblem.length > 0) return fail('"url" ' + urlProblem + ': "' + url + '"');
  c.url = url.endsWith("/") ? url.substring(0, url.length - 1) : url;

  const region = stringField(doc, "region", true);
  if (region === null || region.length == 0) return fail('"region" is required (a non-empty string)');
  c.region = region;

  const zone = stringField(doc, "zone", false);
  if (zone === null) return fail('"zone" must be a string');
  c.zone = zone;

  const timeout = doc.get("timeoutMs");
  if (!timeout.isNull) {
    const ms = timeout.asI32(-1);
    if (ms < 1 || ms > 30000) return fail('"timeoutMs" must be an integer from 1 to 30000');
    c.timeoutMs = ms;
  }

  const prefix = stringField(doc, "labelPrefix", false);
  if (prefix === null) return fail('"labelPrefix" must be a string');
  if (prefix.length > 0) {
    const domain = prefix.endsWith("/") ? prefix.substring(0, prefix.length - 1) : "";
    if (!isDnsSubdomain(domain)) return fail('"labelPrefix" must be a DNS subdomain followed by "/": "' + prefix + '"');
    if (isReservedPrefix(domain))
      return fail('"labelPrefix" must not be under kubernetes.io or k8s.io: "' + prefix + '"');
    c.labelPrefix = prefix;
  }
  return r;
}

// Returns "" when the URL is acceptable, else what is wrong with it.
function checkUrl(url: string): string {
  let rest = "";
  if (url.startsWith("http://")) rest = url.substring(7);
  else if (url.startsWith("https://")) rest = url.substring(8);
  else return "must start with http:// or https://";
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c <= 32 || c >= 127) return "must not contain spaces or non-ASCII characters";
  }
  if (url.includes("?") || url.includes("#")) return "must not have a query or fragment";
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.substring(0, slash);
  if (authority.includes("@")) return "must not carry credentials (the host brokers them)";
  if (authority.length == 0 || authority.startsWith(":")) return "has no host";
  return "";
}
