// The cloud config (--cloud-config, JSON): {"url": "http://api.mycloud.example:8990", "region": "...", "zone": "..."}.
// Checked in initialize: a wrong config is refused at load, with the field named, instead of failing every call.
import { CloudConfig, JsonKind, PluginError, invalid } from "@wasm-ccm/plugin-sdk";

export class Config {
  url: string = "";
  region: string = "";
  zone: string = "";
}

export class ParsedConfig {
  config: Config = new Config();
  error: PluginError | null = null;
}

export function parseConfig(): ParsedConfig {
  const out = new ParsedConfig();
  const doc = CloudConfig.json();
  if (doc === null || doc.kind != JsonKind.Object) {
    out.error = invalid('cloud config: expected a JSON object such as {"url": "http://api.example:8990"}');
    return out;
  }
  out.config.url = doc.get("url").asString();
  out.config.region = doc.get("region").asString();
  out.config.zone = doc.get("zone").asString();
  if (!out.config.url.startsWith("http://") && !out.config.url.startsWith("https://")) {
    out.error = invalid('cloud config: "url" must be an http:// or https:// URL');
  }
  return out;
}
