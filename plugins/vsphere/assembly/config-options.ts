// What the YAML and INI forms of vsphere.conf share: an option's value as either gives it, the readers of the options
// both have, and upstream's defaults and inheritance between the global section and each vCenter.
import { Cidr, parseCIDR } from "@wasm-ccm/plugin-sdk";
import { Config, NodesConfig, VCenter } from "./config-model";

export class Option {
  key: string = "";
  text: string = "";
  isList: bool = false;
  list: string[] = [];
  /** A YAML plain scalar or any INI value: may be read as a boolean or number. */
  plain: bool = true;
  where: string = "";
}

/** What upstream's VirtualCenter reads, and Global besides the vCenter defaults. */
export class Scope {
  server: string = "";
  port: i32 = 0;
  datacenters: string[] = [];
  ipFamilies: string[] = [];
}

/** How one form of vsphere.conf spells the keys of a scope (Global and each vCenter). */
export class ScopeKeys {
  constructor(
    /** Keys the host's credentials entry reads instead: noted, not refused. */
    public hostKeys: string[],
    public ipFamily: string,
    public apiDisable: string,
    public apiBinding: string,
    /** Whether datacenters may come as a list (YAML) or only as one comma-separated value (INI). */
    public datacentersAsList: bool,
    /** How a key the form does not know is named in the error: "option" (INI) or "key" (YAML). */
    public noun: string,
  ) {}
}

/** Reads one option of a scope as either form spells it; the error, or "". */
export function readScopeOption(o: Option, keys: ScopeKeys, scope: Scope, c: Config, global: bool): string {
  const k = o.key;
  if (keys.hostKeys.includes(k)) {
    c.notes.push(o.where + " ignored: the host's vsphere credentials entry logs in");
    return "";
  }
  if (k == "server") return want(o, false, scope, setServer);
  if (k == "port") return readPort(o, scope);
  if (k == "datacenters") return want(o, keys.datacentersAsList, scope, setDatacenters);
  if (k == keys.ipFamily) return readFamilies(o, scope);
  if (global && k == keys.apiDisable) return readApiDisable(o, c);
  if (global && k == keys.apiBinding) return o.text == "" ? "" : o.where + ": not supported (the plugin serves no API)";
  return "unknown " + keys.noun + " " + o.where;
}

export function want(o: Option, listAllowed: bool, scope: Scope, set: (s: Scope, o: Option) => string): string {
  if (o.isList && !listAllowed) return o.where + ": want a single value, not a list";
  return set(scope, o);
}

export function setServer(s: Scope, o: Option): string {
  s.server = o.text.trimStart().trimEnd();
  return "";
}

/** YAML: a list; INI (and, leniently, a YAML string): comma-separated, as upstream joins and splits them. */
export function setDatacenters(s: Scope, o: Option): string {
  const items = o.isList ? o.list : o.text.split(",");
  s.datacenters = [];
  for (let i = 0; i < items.length; i++) {
    const dc = items[i].trimStart().trimEnd();
    if (dc != "") s.datacenters.push(dc);
  }
  return "";
}

export function readPort(o: Option, s: Scope): string {
  const t = o.text.trimStart().trimEnd();
  let n: i32 = 0;
  if (o.isList || !o.plain || t.length == 0 || t.length > 5) n = -1;
  for (let i = 0; n >= 0 && i < t.length; i++) {
    const d = t.charCodeAt(i) - 0x30;
    n = d < 0 || d > 9 ? -1 : n * 10 + d;
  }
  if (n < 0 || n > 65535) return o.where + ': "' + o.text + '" is not a port number';
  s.port = n;
  return "";
}

export function readFamilies(o: Option, s: Scope): string {
  const items = o.isList ? o.list : o.text.split(",");
  s.ipFamilies = [];
  for (let i = 0; i < items.length; i++) {
    const family = items[i].trimStart().trimEnd().toLowerCase();
    if (family == "") continue;
    if (family != "ipv4" && family != "ipv6")
      return o.where + ': "' + items[i] + '" is not ipv4 or ipv6 (Invalid IP Family type)';
    s.ipFamilies.push(family);
  }
  return "";
}

export function readApiDisable(o: Option, c: Config): string {
  const v = o.text.toLowerCase();
  if (v != "true" && v != "false" && v != "1" && v != "0") return o.where + ': "' + o.text + '" is not a boolean';
  c.notes.push(o.where + " ignored: the plugin serves no API");
  return "";
}

export function readNodeOption(index: i32, o: Option, n: NodesConfig): string {
  if (index >= 4) {
    if (index == 4) n.internalNetworkName = o.text;
    else n.externalNetworkName = o.text;
    return "";
  }
  const list: Cidr[] = [];
  const parts = o.text.trimStart().trimEnd().length == 0 ? new Array<string>(0) : o.text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const cidr = parseCIDR(parts[i].trimStart().trimEnd());
    if (cidr === null) return o.where + ': "' + parts[i] + '" is not a CIDR';
    list.push(cidr);
  }
  if (index == 0) n.internalSubnets = list;
  else if (index == 1) n.externalSubnets = list;
  else if (index == 2) n.excludeInternalSubnets = list;
  else n.excludeExternalSubnets = list;
  return "";
}

export function vcenterOf(name: string, scope: Scope): VCenter {
  const v = new VCenter();
  v.name = name;
  v.server = scope.server;
  v.port = scope.port;
  v.datacenters = scope.datacenters;
  v.ipFamilies = scope.ipFamilies;
  return v;
}

/** Upstream's validateConfig: the global server as a vCenter of its own, then the global defaults for each. */
export function resolve(global: Scope, vcenters: VCenter[], c: Config): string {
  let hasGlobal = false;
  for (let i = 0; i < vcenters.length; i++) {
    if (vcenters[i].name == global.server || vcenters[i].server == global.server) hasGlobal = true;
  }
  if (global.server != "" && !hasGlobal) vcenters.unshift(vcenterOf(global.server, global));
  if (vcenters.length == 0) return "no vCenter defined (global.server, or a vcenter entry)";
  for (let i = 0; i < vcenters.length; i++) {
    const v = vcenters[i];
    if (v.port == 0) v.port = global.port != 0 ? global.port : 443;
    if (v.datacenters.length == 0) v.datacenters = global.datacenters;
    if (v.ipFamilies.length == 0) v.ipFamilies = global.ipFamilies.length > 0 ? global.ipFamilies : ["ipv4"];
  }
  c.vcenters = vcenters;
  return "";
}
