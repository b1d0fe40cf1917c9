// The cloud config: OCCM's cloud.conf as it is, read with OCCM's defaults. [Global] gives the region (the auth keys
// are the host's: it logs in to Keystone and attaches the token, so they are ignored here, and the secret ones never
// reach the plugin); [LoadBalancer], [Networking], [Metadata] and [Route] are read as OCCM reads them. An option this
// plugin does not carry out is refused, naming it, rather than accepted and silently ignored.
import { IniEntry, IniSection, invalid, parseIni, PluginError } from "@wasm-ccm/plugin-sdk";
import { DEFAULT_WAIT_STEPS } from "./budget";
import { NOT_AN_INTEGER, parseBool, parseDurationMs, parseInteger } from "./values";

export class LbConfig {
  enabled: bool = true;
  subnetID: string = "";
  memberSubnetID: string = "";
  networkID: string = "";
  floatingNetworkID: string = "";
  floatingSubnetID: string = "";
  lbMethod: string = "ROUND_ROBIN";
  lbProvider: string = "amphora";
  createMonitor: bool = false;
  monitorDelay: i32 = 5;
  monitorTimeout: i32 = 3;
  monitorMaxRetries: i32 = 1;
  monitorMaxRetriesDown: i32 = 3;
  internalLB: bool = false;
  nodeSelector: string = "";
  cascadeDelete: bool = true;
  flavorID: string = "";
  availabilityZone: string = "";
  enableIngressHostname: bool = false;
  ingressHostnameSuffix: string = "nip.io";
}

export class Config {
  /** [Global] region; the catalog's region when the file has none. */
  region: string = "";
  /** `openstack://<region>/<id>` providerIDs: OCCM's OS_CCM_REGIONAL=true (the plugin's [Environment] section holds
   * the variables OCCM reads from its environment, which a plugin does not have). */
  regionalProviderID: bool = false;
  lb: LbConfig = new LbConfig();
  routerID: string = "";
  ipv6Disabled: bool = false;
  publicNetworks: string[] = [];
  internalNetworks: string[] = [];
  addressSortOrder: string = "";
  /** [Metadata] request-timeout: OCCM's timeout for every OpenStack request. */
  requestTimeoutMs: i32 = 60000;
  /** OCCM_WAIT_LB_ACTIVE_STEPS: how long a call waits for a load balancer to become ACTIVE (budget.ts). */
  waitSteps: i32 = DEFAULT_WAIT_STEPS;
}

export class ConfigResult {
  config: Config = new Config();
  error: PluginError | null = null;
}

// The [Global] keys of OCCM's AuthOpts (and the clouds.yaml-style aliases the host's cloud.conf reader takes): they
// configure the host's Keystone login, not the plugin.
const AUTH_KEYS = [
  "auth-url", "user-id", "username", "password", "tenant-id", "tenant-name", "project-id", "project-name", "trust-id",
  "trustee-id", "trustee-password", "domain-id", "domain-name", "tenant-domain-id", "tenant-domain-name",
  "project-domain-id", "project-domain-name", "user-domain-id", "user-domain-name", "os-endpoint-type", "ca-file",
  "tls-insecure", "token", "cert-file", "key-file", "cafilecontents", "use-clouds", "clouds-file", "cloud",
  "application-credential-id", "application-credential-name", "application-credential-secret",
];

const LB_METHODS = ["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"];
const SEARCH_ORDER = ["configDrive", "metadataService"];

/** Reads one option into `c`; an error message when its value is bad or the option is not supported. */
type OptionReader = (c: Config, e: IniEntry) => string | null;

export function parseConfig(text: string): ConfigResult {
  const out = new ConfigResult();
  const ini = parseIni(text);
  if (ini.error != "") return fail(out, ini.error);
  for (let s = 0; s < ini.sections.length; s++) {
    const section = ini.sections[s];
    const reader = readerOf(section);
    if (reader === null) return fail(out, unknownSection(section));
    for (let i = 0; i < section.entries.length; i++) {
      const e = section.entries[i];
      const error = reader(out.config, e);
      if (error !== null) return fail(out, section.title + " " + e.key + ": " + error);
    }
  }
  return out;
}

function readerOf(section: IniSection): OptionReader | null {
  if (section.hasSub) return null;
  if (section.name == "global") return readGlobal;
  if (section.name == "loadbalancer") return readLoadBalancer;
  if (section.name == "networking") return readNetworking;
  if (section.name == "metadata") return readMetadata;
  if (section.name == "route") return readRoute;
  if (section.name == "environment") return readEnvironment;
  return null;
}

function unknownSection(section: IniSection): string {
  if (section.name == "loadbalancerclass") {
    return section.title + ": load balancer classes are not supported (nor the loadbalancer.openstack.org/class annotation)";
  }
  return "unknown section " + section.title + " (want [Global], [LoadBalancer], [Networking], [Metadata], [Route])";
}

function fail(out: ConfigResult, message: string): ConfigResult {
  out.error = invalid("cloud config: " + message);
  return out;
}

function readGlobal(c: Config, e: IniEntry): string | null {
  if (e.key == "region") c.region = e.value;
  else if (!AUTH_KEYS.includes(e.key)) return "unknown option";
  return null;
}

function readRoute(c: Config, e: IniEntry): string | null {
  if (e.key != "router-id") return "unknown option";
  c.routerID = e.value;
  return null;
}

function readEnvironment(c: Config, e: IniEntry): string | null {
  // OCCM's gcfg refuses '_' in a name (a fatal error at start): written with '-', the same file starts OCCM too,
  // which skips the section.
  const key = e.key.replaceAll("_", "-");
  if (key == "occm-wait-lb-active-steps") {
    const steps = parseInteger(e.value, 0, 40);
    if (steps == NOT_AN_INTEGER) return '"' + e.value + '" is not a number of steps, 0-40';
    c.waitSteps = <i32>steps;
    return null;
  }
  if (key != "os-ccm-regional") {
    return "unknown variable (OCCM reads OS_CCM_REGIONAL and OCCM_WAIT_LB_ACTIVE_STEPS: os-ccm-regional, occm-wait-lb-active-steps)";
  }
  // OCCM compares the variable with "true", nothing else.
  c.regionalProviderID = e.value == "true";
  return null;
}

function readNetworking(c: Config, e: IniEntry): string | null {
  if (e.key == "ipv6-support-disabled") return readBool(e, c, setIpv6Disabled);
  if (e.key == "public-network-name") addListValue(c.publicNetworks, e);
  else if (e.key == "internal-network-name") addListValue(c.internalNetworks, e);
  else if (e.key == "address-sort-order") c.addressSortOrder = e.value;
  else return "unknown option";
  return null;
}

/** gcfg's multi-valued variables: each line adds a value, a blank one (`name =`) clears the list. */
function addListValue(list: string[], e: IniEntry): void {
  if (e.value == "" && !e.blank) list.length = 0;
  else list.push(e.value);
}

function setIpv6Disabled(c: Config, v: bool): void {
  c.ipv6Disabled = v;
}

function readMetadata(c: Config, e: IniEntry): string | null {
  if (e.key == "request-timeout") {
    const ms = parseDurationMs(e.value);
    if (isNaN(ms) || ms < 0 || ms > 3600000) return '"' + e.value + '" is not a duration such as 30s';
    if (ms > 0) c.requestTimeoutMs = <i32>Math.max(1, ms);
    return null;
  }
  if (e.key != "search-order") return "unknown option";
  // Checked as OCCM checks it, though only the node-local parts of OCCM read the metadata service.
  const items = e.value.split(",");
  if (e.value == "" || items.length > 2) return "want configDrive, metadataService or both, comma-separated";
  for (let i = 0; i < items.length; i++) {
    if (!SEARCH_ORDER.includes(items[i].trimStart().trimEnd())) return '"' + items[i] + '" is not configDrive or metadataService';
  }
  return null;
}

function readBool(e: IniEntry, c: Config, set: (c: Config, v: bool) => void): string | null {
  const v = e.blank ? 1 : parseBool(e.value);
  if (v < 0) return '"' + e.value + '" is not a boolean';
  set(c, v == 1);
  return null;
}

function readLoadBalancer(c: Config, e: IniEntry): string | null {
  const lb = c.lb;
  const k = e.key;
  const v = e.value;
  if (k == "subnet-id") lb.subnetID = v;
  else if (k == "member-subnet-id") lb.memberSubnetID = v;
  else if (k == "network-id") lb.networkID = v;
  else if (k == "floating-network-id") lb.floatingNetworkID = v;
  else if (k == "floating-subnet-id") lb.floatingSubnetID = v;
  else if (k == "lb-provider") lb.lbProvider = v;
  else if (k == "node-selector") lb.nodeSelector = v;
  else if (k == "flavor-id") lb.flavorID = v;
  else if (k == "availability-zone") lb.availabilityZone = v;
  else if (k == "ingress-hostname-suffix") lb.ingressHostnameSuffix = v;
  else if (k == "lb-method") {
    if (!LB_METHODS.includes(v)) return '"' + v + '" is not one of ' + LB_METHODS.join(", ");
    lb.lbMethod = v;
  } else if (k == "lb-version") {
    if (v != "" && v != "v2") return '"' + v + '": only v2 is supported, as in OCCM';
  } else {
    return readLoadBalancerFlags(c, e);
  }
  return null;
}

function readLoadBalancerFlags(c: Config, e: IniEntry): string | null {
  const k = e.key;
  if (k == "enabled") return readBool(e, c, (c: Config, v: bool): void => { c.lb.enabled = v; });
  if (k == "create-monitor") return readBool(e, c, (c: Config, v: bool): void => { c.lb.createMonitor = v; });
  if (k == "internal-lb") return readBool(e, c, (c: Config, v: bool): void => { c.lb.internalLB = v; });
  if (k == "cascade-delete") return readBool(e, c, (c: Config, v: bool): void => { c.lb.cascadeDelete = v; });
  if (k == "enable-ingress-hostname") {
    return readBool(e, c, (c: Config, v: bool): void => { c.lb.enableIngressHostname = v; });
  }
  if (k == "monitor-delay" || k == "monitor-timeout") return readMonitorDuration(c, e);
  if (k == "monitor-max-retries" || k == "monitor-max-retries-down") {
    const n = parseInteger(e.value, 0, 100);
    if (n == NOT_AN_INTEGER) return '"' + e.value + '" is not a count';
    if (k == "monitor-max-retries") c.lb.monitorMaxRetries = <i32>n;
    else c.lb.monitorMaxRetriesDown = <i32>n;
    return null;
  }
  return readUnsupported(e);
}

function readMonitorDuration(c: Config, e: IniEntry): string | null {
  const ms = parseDurationMs(e.value);
  if (isNaN(ms) || ms < 0 || ms > 86400000) return '"' + e.value + '" is not a duration such as 5s';
  // OCCM sends whole seconds (int(Duration.Seconds())).
  const seconds = <i32>Math.floor(ms / 1000);
  if (e.key == "monitor-delay") c.lb.monitorDelay = seconds;
  else c.lb.monitorTimeout = seconds;
  return null;
}

/**
 * OCCM options for features this plugin lacks: accepted only at values that ask for nothing (OCCM's defaults, or a
 * setting that only tunes a refused feature), refused otherwise.
 */
function readUnsupported(e: IniEntry): string | null {
  const k = e.key;
  const v = e.value;
  if (k == "manage-security-groups" || k == "provider-requires-serial-api-calls") {
    const b = e.blank ? 1 : parseBool(v);
    if (b < 0) return '"' + v + '" is not a boolean';
    return b == 0 ? null : "not supported by this plugin (leave it false)";
  }
  if (k == "floating-subnet" || k == "floating-subnet-tags" || k == "default-tls-container-ref") {
    return v == "" ? null : "not supported by this plugin (use floating-subnet-id; no TLS termination)";
  }
  // Sharing load balancers and TLS containers are refused where they are asked for (annotations), so these only
  // tune what never happens.
  if (k == "max-shared-lb") return parseInteger(v, 0, 1000000) == NOT_AN_INTEGER ? '"' + v + '" is not a count' : null;
  if (k == "container-store") return v == "barbican" || v == "external" ? null : '"' + v + '" is not barbican or external';
  return "unknown option";
}
