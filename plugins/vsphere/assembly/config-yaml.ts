// vsphere.conf in YAML (global, vcenter.<name>, labels, nodes), keys as upstream's yaml tags spell them.
import { Config, VCenter } from "./config-model";
import {
  Option,
  readNodeOption,
  readScopeOption,
  resolve,
  Scope,
  ScopeKeys,
  vcenterOf,
  want,
} from "./config-options";
import { parseYaml, YamlKind, YamlNode } from "./yaml";

const HOST_KEYS_YAML = [
  "user",
  "password",
  "secretName",
  "secretNamespace",
  "secretsDirectory",
  "insecureFlag",
  "caFile",
  "thumbprint",
  "soapRoundtripCount",
];
const YAML_KEYS = new ScopeKeys(HOST_KEYS_YAML, "ipFamily", "apiDisable", "apiBinding", true, "key");
const NODE_KEYS_YAML = [
  "internalNetworkSubnetCidr",
  "externalNetworkSubnetCidr",
  "excludeInternalNetworkSubnetCidr",
  "excludeExternalNetworkSubnetCidr",
  "internalVmNetworkName",
  "externalVmNetworkName",
];
export function readYaml(text: string, c: Config): string {
  c.format = "yaml";
  const doc = parseYaml(text);
  if (doc.error != "") return "YAML " + doc.error;
  const root = doc.root;
  if (root.kind != YamlKind.Map) return "YAML: the document must be a mapping (global, vcenter, labels, nodes)";
  const global = new Scope();
  const vcenters: VCenter[] = [];
  for (let i = 0; i < root.keys.length; i++) {
    const key = root.keys[i];
    const value = root.values[i];
    if (value.kind == YamlKind.Null) continue;
    if (value.kind != YamlKind.Map) return key + ": want a mapping (line " + value.line.toString() + ")";
    let error = "";
    if (key == "global") error = readYamlScope(value, "global", global, c, true);
    else if (key == "vcenter") error = readYamlVCenters(value, vcenters, c);
    else if (key == "labels") error = readYamlLabels(value, c);
    else if (key == "nodes") error = readYamlNodes(value, c);
    else error = "unknown key " + key + " (want global, vcenter, labels, nodes)";
    if (error != "") return error;
  }
  return resolve(global, vcenters, c);
}

function yamlOption(key: string, node: YamlNode, where: string): Option {
  const o = new Option();
  o.key = key;
  o.where = where + "." + key;
  if (node.kind == YamlKind.Seq) {
    o.isList = true;
    for (let i = 0; i < node.items.length; i++) o.list.push(node.items[i].text);
  } else {
    o.text = node.text;
    o.plain = node.plain;
  }
  return o;
}

function readYamlScope(node: YamlNode, where: string, scope: Scope, c: Config, global: bool): string {
  for (let i = 0; i < node.keys.length; i++) {
    const value = node.values[i];
    if (value.kind == YamlKind.Null) continue;
    if (value.kind == YamlKind.Map) return where + "." + node.keys[i] + ": want a value, not a mapping";
    const o = yamlOption(node.keys[i], value, where);
    const error = readScopeOption(o, YAML_KEYS, scope, c, global);
    if (error != "") return error;
  }
  return "";
}

function readYamlVCenters(node: YamlNode, out: VCenter[], c: Config): string {
  for (let i = 0; i < node.keys.length; i++) {
    const value = node.values[i];
    const where = "vcenter." + node.keys[i];
    if (value.kind != YamlKind.Map && value.kind != YamlKind.Null) return where + ": want a mapping";
    const scope = new Scope();
    const error = value.kind == YamlKind.Map ? readYamlScope(value, where, scope, c, false) : "";
    if (error != "") return error;
    // Upstream requires the server here (the key is only a name).
    if (scope.server == "")
      return where + ".server: required (vsphere.conf does not have the VirtualCenter IP address specified)";
    out.push(vcenterOf(node.keys[i], scope));
  }
  return "";
}

function readYamlLabels(node: YamlNode, c: Config): string {
  for (let i = 0; i < node.keys.length; i++) {
    const o = yamlOption(node.keys[i], node.values[i], "labels");
    if (o.isList) return o.where + ": want a tag category name";
    if (o.key == "zone") c.zoneCategory = o.text;
    else if (o.key == "region") c.regionCategory = o.text;
    else return "unknown key " + o.where + " (want zone, region)";
  }
  return "";
}

function readYamlNodes(node: YamlNode, c: Config): string {
  for (let i = 0; i < node.keys.length; i++) {
    const o = yamlOption(node.keys[i], node.values[i], "nodes");
    const index = NODE_KEYS_YAML.indexOf(o.key);
    if (index < 0) return "unknown key " + o.where;
    if (o.isList) return o.where + ": want a string (CIDRs comma-separated)";
    const error = readNodeOption(index, o, c.nodes);
    if (error != "") return error;
  }
  return "";
}
