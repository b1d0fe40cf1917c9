// The provider's configuration: the text of --cloud-config, handed over once by ccm_initialize. The SDK keeps it for
// the lifetime of the instance (the host initializes every instance before using it). Beside it, the plugin's Extism
// config: values the host writes for the plugin (a login flow's service catalog) or the operator exposed to it.
import { Memory } from "@extism/as-pdk";
import { config_get } from "@extism/as-pdk/lib/env";
import { fromBlock } from "./host/io";
import { JsonValue } from "./json/value";

let configText: string = "";
let configCluster: string = "";
let configSet: bool = false;

/** Called by the SDK when ccm_initialize arrives, before Provider.initialize. */
export function setCloudConfig(text: string, clusterName: string): void {
  configText = text;
  configCluster = clusterName;
  configSet = true;
}

export class CloudConfig {
  /** Whether ccm_initialize has been served by this instance. */
  static isSet(): bool {
    return configSet;
  }

  /** The --cloud-config file's content ("" when none was given). */
  static text(): string {
    return configText;
  }

  /** --cluster-name. */
  static clusterName(): string {
    return configCluster;
  }

  /** The config parsed as JSON; null when it is not JSON (JsonValue.lastError() says why). */
  static json(): JsonValue | null {
    return JsonValue.parse(configText);
  }

  /** The config parsed as `key = value` lines (see IniConfig). */
  static ini(): IniConfig {
    return IniConfig.parse(configText);
  }
}

/**
 * The plugin's Extism config (`config_get`): what the host put there for this plugin, never the cloud config. The host
 * gives a plugin only values meant for it: a login flow's service catalog (`keystone.catalog`) or a credential the
 * operator exposed with `credentials.exposeToPlugin`.
 */
export class PluginConfig {
  /** The value of `key` as UTF-8 text; null when the host set no such key. */
  static get(key: string): string | null {
    const name = Memory.allocateString(key);
    const offset = config_get(name.offset);
    name.free();
    if (offset == 0) return null;
    const bytes = fromBlock(offset);
    return String.UTF8.decodeUnsafe(bytes.dataStart, <usize>bytes.length);
  }
}

/**
 * A `key = value` configuration, the shape of most upstream cloud configs:
 *
 *   # comment            ; comment too
 *   [Global]             keys below are "Global.<key>"
 *   region = eu-west-1
 *   zone = "a b"         surrounding double quotes are removed
 *
 * Lines it cannot read are listed in `problems` (with their line number) and otherwise skipped.
 */
export class IniConfig {
  private values: Map<string, string> = new Map();
  private order: string[] = [];
  problems: string[] = [];

  static parse(text: string): IniConfig {
    const cfg = new IniConfig();
    const lines = text.split("\n");
    let section = "";
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trimStart().trimEnd();
      if (line.length == 0 || line.startsWith("#") || line.startsWith(";")) continue;
      if (line.startsWith("[")) {
        if (!line.endsWith("]") || line.length < 3) {
          cfg.problems.push("line " + (i + 1).toString() + ": bad section header");
          continue;
        }
        section = line.substring(1, line.length - 1).trimStart().trimEnd();
        continue;
      }
      const eq = line.indexOf("=");
      if (eq <= 0) {
        cfg.problems.push("line " + (i + 1).toString() + ": expected key = value");
        continue;
      }
      let value = line.substring(eq + 1).trimStart().trimEnd();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.substring(1, value.length - 1);
      const key = line.substring(0, eq).trimStart().trimEnd();
      cfg.set(section.length > 0 ? section + "." + key : key, value);
    }
    return cfg;
  }

  set(key: string, value: string): void {
    if (!this.values.has(key)) this.order.push(key);
    this.values.set(key, value);
  }

  has(key: string): bool {
    return this.values.has(key);
  }

  get(key: string, fallback: string = ""): string {
    return this.values.has(key) ? this.values.get(key) : fallback;
  }

  /** The value as an integer; `fallback` when absent or not a whole number. */
  getI32(key: string, fallback: i32 = 0): i32 {
    if (!this.values.has(key)) return fallback;
    const v = this.values.get(key).trimStart().trimEnd();
    let i = v.startsWith("-") || v.startsWith("+") ? 1 : 0;
    if (i == v.length || v.length - i > 10) return fallback;
    let n: i64 = 0;
    for (; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return fallback;
      n = n * 10 + <i64>(c - 0x30);
    }
    if (v.startsWith("-")) n = -n;
    return n < -2147483648 || n > 2147483647 ? fallback : <i32>n;
  }

  /** true/yes/on/1 and false/no/off/0 (any case); `fallback` otherwise. */
  getBool(key: string, fallback: bool = false): bool {
    if (!this.values.has(key)) return fallback;
    const v = this.values.get(key).toLowerCase();
    if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
    if (v == "false" || v == "no" || v == "off" || v == "0") return false;
    return fallback;
  }

  /** Keys in file order. */
  keys(): string[] {
    return this.order.slice(0);
  }
}
