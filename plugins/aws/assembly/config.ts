// The cloud config: cloud-provider-aws's own INI file (gcfg), so one file configures this plugin and the upstream
// CCM alike. Every [Global] key of upstream is honoured (global-keys.ts), refused by name (Invalid at start) or
// accepted with a warning naming it; an unknown key is refused, as gcfg refuses it. [ServiceOverride "<n>"]
// sections (Service, Region, URL, SigningRegion) that point ec2 and elasticloadbalancing at other endpoints (moto in
// the tests, VPC endpoints in production). Keys are matched without regard to case, as gcfg does. What the cloud
// config leaves out of Region and Zone comes from the host (`aws.region`, `aws.zone` in the plugin's Extism config:
// its awsSigV4 credentials entry's region, and the zone of the instance metadata service), where upstream asks the
// instance metadata service itself.
import { IniConfig, invalid, PluginError } from "@wasm-ccm/plugin-sdk";
import { otherGlobalKey, ProbeMode } from "./global-keys";

export class Config {
  region: string = "";
  zone: string = "";
  vpc: string = "";
  routeTableID: string = "";
  /** The subnet an NLB goes into when no subnet of the VPC is tagged for the cluster (upstream: its own). */
  subnetID: string = "";
  /** The cluster ID tags are written with; the host's --cluster-name when the config has none. */
  clusterID: string = "";
  /** ClusterServiceLoadBalancerHealthProbeMode and its Shared probe's port and path. */
  probe: ProbeMode = new ProbeMode();
  /** DisableSecurityGroupIngress: no load balancer's rules in the instances' groups, as upstream (the cluster opens them). */
  disableSecurityGroupIngress: bool = false;
  /** ElbSecurityGroup: the group of every Classic ELB whose Service names none, never made or deleted here. */
  elbSecurityGroup: string = "";
  ec2Url: string = "";
  elbUrl: string = "";
}

export class ConfigResult {
  config: Config = new Config();
  /** Keys accepted without effect, each in a sentence naming it, for the log at start. */
  warnings: string[] = [];
  error: PluginError | null = null;
}


/** gcfg's bool: true, yes, on, 1 (1) or false, no, off, 0 (0) in any case; -1 for anything else. */
function gcfgBool(text: string): i32 {
  const t = text.toLowerCase();
  if (t == "true" || t == "yes" || t == "on" || t == "1") return 1;
  if (t == "false" || t == "no" || t == "off" || t == "0") return 0;
  return -1;
}

const OVERRIDE_KEYS = ["service", "region", "url", "signingregion", "signingmethod", "signingname"];

/** `hostRegion` and `hostZone`: what the host says (empty: nothing), used where the cloud config says nothing. */
export function parseConfig(text: string, clusterName: string, hostRegion: string = "", hostZone: string = ""): ConfigResult {
  const out = new ConfigResult();
  const ini = IniConfig.parse(text);
  if (ini.problems.length > 0) return fail(out, ini.problems[0]);
  const c = out.config;
  const overrides = new Map<string, Map<string, string>>();
  const keys = ini.keys();
  for (let i = 0; i < keys.length; i++) {
    const dot = keys[i].lastIndexOf(".");
    const section = dot < 0 ? "" : keys[i].substring(0, dot);
    const key = keys[i].substring(dot + 1).toLowerCase();
    const value = ini.get(keys[i]);
    if (section.toLowerCase() == "global") {
      if (key == "region") c.region = value;
      else if (key == "zone") c.zone = value;
      else if (key == "vpc") c.vpc = value;
      else if (key == "subnetid") c.subnetID = value;
      else if (key == "routetableid") c.routeTableID = value;
      else if (key == "kubernetesclusterid" || key == "kubernetesclustertag") c.clusterID = value;
      else if (key == "elbsecuritygroup") c.elbSecurityGroup = value;
      else if (key == "disablesecuritygroupingress") {
        const on = gcfgBool(value);
        if (on < 0) return fail(out, "[Global] DisableSecurityGroupIngress " + value + " is not true or false");
        c.disableSecurityGroupIngress = on == 1;
      } else {
        const error = otherGlobalKey(c.probe, key, value, out.warnings);
        if (error !== null) return fail(out, "[Global] " + error);
      }
    } else if (section.toLowerCase().startsWith("serviceoverride")) {
      if (!OVERRIDE_KEYS.includes(key)) return fail(out, "[" + section + "]: unknown key " + key);
      if (!overrides.has(section)) overrides.set(section, new Map<string, string>());
      overrides.get(section).set(key, value);
    } else {
      return fail(out, "unknown section [" + section + "] (want [Global] or [ServiceOverride \"<n>\"])");
    }
  }
  if (c.zone == "") c.zone = hostZone;
  if (c.region == "" && c.zone.length > 1) c.region = regionOfZone(c.zone);
  if (c.region == "") c.region = hostRegion;
  if (c.region == "") {
    return fail(out, "[Global] Region (or Zone) is required: no awsSigV4 credentials entry of the host gives the region");
  }
  if (c.vpc == "") return fail(out, "[Global] VPC is required: load balancers and route tables are found in it");
  if (c.clusterID == "") c.clusterID = clusterName;
  const probeError = c.probe.check();
  if (probeError !== null) return fail(out, probeError);
  c.ec2Url = "https://ec2." + c.region + ".amazonaws.com";
  c.elbUrl = "https://elasticloadbalancing." + c.region + ".amazonaws.com";
  const sections = overrides.keys();
  for (let i = 0; i < sections.length; i++) {
    const error = applyOverride(c, sections[i], overrides.get(sections[i]));
    if (error !== null) return fail(out, error);
  }
  return out;
}

function applyOverride(c: Config, section: string, o: Map<string, string>): string | null {
  const service = o.has("service") ? o.get("service") : "";
  const url = o.has("url") ? o.get("url") : "";
  if (!url.startsWith("http://") && !url.startsWith("https://")) return "[" + section + "] URL must be http(s)://";
  if (o.has("region") && o.get("region") != c.region) return null; // an override for another region
  let base = url;
  while (base.endsWith("/")) base = base.substring(0, base.length - 1);
  if (service == "ec2") c.ec2Url = base;
  else if (service == "elasticloadbalancing") c.elbUrl = base;
  else if (service != "elb" && service != "s3" && service != "kms" && service != "sts" && service != "autoscaling") {
    return "[" + section + "] Service " + service + " is not an AWS service this plugin or upstream knows";
  }
  return null;
}

/** us-east-1a -> us-east-1 (a zone is its region and one letter; local zones are not supported here). */
export function regionOfZone(zone: string): string {
  return zone.substring(0, zone.length - 1);
}

function fail(out: ConfigResult, message: string): ConfigResult {
  out.error = invalid("cloud config: " + message);
  return out;
}
