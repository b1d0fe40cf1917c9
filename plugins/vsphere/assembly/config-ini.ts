// The legacy INI vsphere.conf ([Global], [VirtualCenter "<server>"], [Labels], [Nodes]), read as gcfg reads it.
import { IniSection, parseIni } from "@wasm-ccm/plugin-sdk";
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

const HOST_KEYS_INI = [
  "user",
  "password",
  "secret-name",
  "secret-namespace",
  "secrets-directory",
  "insecure-flag",
  "ca-file",
  "thumbprint",
  "soap-roundtrip-count",
];
const INI_KEYS = new ScopeKeys(HOST_KEYS_INI, "ip-family", "api-disable", "api-binding", false, "option");
const NODE_KEYS_INI = [
  "internal-network-subnet-cidr",
  "external-network-subnet-cidr",
  "exclude-internal-network-subnet-cidr",
  "exclude-external-network-subnet-cidr",
  "internal-vm-network-name",
  "external-vm-network-name",
];

export function readIni(text: string, c: Config): string {
  c.format = "ini";
  const ini = parseIni(text);
  if (ini.error != "") return "INI " + ini.error;
  const global = new Scope();
  const vcenters: VCenter[] = [];
  for (let s = 0; s < ini.sections.length; s++) {
    const section = ini.sections[s];
    let error = "";
    if (section.name == "global" && !section.hasSub) error = readIniScope(section, global, c, true);
    else if (section.name == "virtualcenter" && section.hasSub) {
      const scope = new Scope();
      error = readIniScope(section, scope, c, false);
      // The subsection is the server unless the section names another.
      if (scope.server == "") scope.server = section.sub;
      if (section.sub == "") error = section.title + ": the subsection must name the vCenter server";
      vcenters.push(vcenterOf(section.sub, scope));
    } else if (section.name == "labels" && !section.hasSub) error = readIniLabels(section, c);
    else if (section.name == "nodes" && !section.hasSub) error = readIniNodes(section, c);
    else error = "unknown section " + section.title + ' (want [Global], [VirtualCenter "<server>"], [Labels], [Nodes])';
    if (error != "") return error;
  }
  return resolve(global, vcenters, c);
}

function iniOption(section: IniSection, i: i32): Option {
  const e = section.entries[i];
  const o = new Option();
  o.key = e.key;
  o.text = e.blank ? "true" : e.value;
  o.where = section.title + " " + e.key;
  return o;
}

function readIniScope(section: IniSection, scope: Scope, c: Config, global: bool): string {
  for (let i = 0; i < section.entries.length; i++) {
    const o = iniOption(section, i);
    const error = readScopeOption(o, INI_KEYS, scope, c, global);
    if (error != "") return error;
  }
  return "";
}

function readIniLabels(section: IniSection, c: Config): string {
  for (let i = 0; i < section.entries.length; i++) {
    const o = iniOption(section, i);
    if (o.key == "zone") c.zoneCategory = o.text;
    else if (o.key == "region") c.regionCategory = o.text;
    else return "unknown option " + o.where + " (want zone, region)";
  }
  return "";
}

function readIniNodes(section: IniSection, c: Config): string {
  for (let i = 0; i < section.entries.length; i++) {
    const o = iniOption(section, i);
    const index = NODE_KEYS_INI.indexOf(o.key);
    if (index < 0) return "unknown option " + o.where;
    const error = readNodeOption(index, o, c.nodes);
    if (error != "") return error;
  }
  return "";
}

/** Reads a value that must (or must not) be a list into the scope. */
