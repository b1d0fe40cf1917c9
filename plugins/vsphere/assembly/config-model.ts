// The configuration the plugin runs with, as read from vsphere.conf (config.ts).
import { Cidr } from "@wasm-ccm/plugin-sdk";

export class VCenter {
  /** The vcenter map's key (upstream's tenantRef), or the INI subsection. */
  name: string = "";
  server: string = "";
  port: i32 = 0;
  /** Names, inventory paths or `Datacenter:<moid>`; empty: every datacenter of the vCenter. */
  datacenters: string[] = [];
  /** ipv4 / ipv6, in priority order. */
  ipFamilies: string[] = [];

  /** https://server[:port], the root of /sdk and /rest. */
  get url(): string {
    const host = this.server.indexOf(":") >= 0 && !this.server.startsWith("[") ? "[" + this.server + "]" : this.server;
    return "https://" + host + (this.port == 443 ? "" : ":" + this.port.toString());
  }
}

export class NodesConfig {
  internalSubnets: Cidr[] = [];
  externalSubnets: Cidr[] = [];
  excludeInternalSubnets: Cidr[] = [];
  excludeExternalSubnets: Cidr[] = [];
  internalNetworkName: string = "";
  externalNetworkName: string = "";
}

export class Config {
  vcenters: VCenter[] = [];
  /** Tag category names of labels.zone / labels.region; zones are looked up only when both are set. */
  zoneCategory: string = "";
  regionCategory: string = "";
  nodes: NodesConfig = new NodesConfig();
  /** Options read but left to the host, for the start-up log. */
  notes: string[] = [];
  /** "yaml" or "ini". */
  format: string = "";
}
