// vsphere.conf in both forms cloud-provider-vsphere reads: YAML (global, vcenter, labels, nodes) and the legacy INI
// ([Global], [VirtualCenter "<server>"], [Labels], [Nodes]); a text whose first line is an INI section header is INI,
// anything else YAML. Defaults and inheritance are upstream's: a global server is a vCenter of its own, each vCenter
// takes the global port (443), datacenters and IP families (ipv4) unless it sets them. Credentials and TLS options
// (user, password, secrets, CA, thumbprint, insecure) are the host's: it logs in and attaches the session, so they
// are ignored here, each with a note. An option the plugin does not carry out is refused, naming it.
import { invalid, PluginError } from "@wasm-ccm/plugin-sdk";
import { readIni } from "./config-ini";
import { Config } from "./config-model";
import { readYaml } from "./config-yaml";

export { Config, NodesConfig, VCenter } from "./config-model";

export class ConfigResult {
  config: Config = new Config();
  error: PluginError | null = null;
}

/** One option's value as the two forms give it; `list` for YAML sequences. */
export function parseConfig(text: string): ConfigResult {
  const out = new ConfigResult();
  let error: string;
  if (text.trimStart().trimEnd().length == 0) error = "no vSphere cloud provider config given (vsphere.conf, YAML or INI)";
  else if (looksLikeIni(text)) error = readIni(text, out.config);
  else error = readYaml(text, out.config);
  if (error == "") error = finish(out.config);
  if (error != "") out.error = invalid("cloud config (vsphere.conf): " + error);
  return out;
}

/** The first content line is a gcfg section header (`[Global]`, `[VirtualCenter "10.0.0.1"]`). */
function looksLikeIni(text: string): bool {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trimStart().trimEnd();
    if (line.length == 0 || line.startsWith("#") || line.startsWith(";")) continue;
    if (!line.startsWith("[") || !line.endsWith("]")) return false;
    const c = line.charCodeAt(1);
    return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  }
  return false;
}

function finish(c: Config): string {
  if ((c.zoneCategory == "") != (c.regionCategory == "")) {
    c.notes.push("labels: zones and regions are looked up only when both categories are set, as upstream does");
  }
  return "";
}
