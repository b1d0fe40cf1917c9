// Zones: the configured zone for the CCM's own (there is no instance metadata service to ask), else the instance's
// placement, with the configured region (cloud-provider-aws answers its own region too).
import { instanceNotFound, internal, PluginError, Zone } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import { describeInstances, instanceIdOf, InstancesResult } from "./instances";

export function getZone(cfg: Config, out: Zone): PluginError | null {
  if (cfg.zone == "") return internal("getZone: the cloud config has no [Global] Zone");
  out.failureDomain = cfg.zone;
  out.region = cfg.region;
  return null;
}

export function zoneOf(cfg: Config, found: InstancesResult, what: string, out: Zone): PluginError | null {
  if (found.error !== null) return found.error;
  for (let i = 0; i < found.instances.length; i++) {
    if (found.instances[i].state == "terminated") continue;
    out.failureDomain = found.instances[i].zone;
    out.region = cfg.region;
    return null;
  }
  return instanceNotFound("no EC2 instance for " + what);
}

export function getZoneByProviderID(aws: Aws, cfg: Config, providerID: string, out: Zone): PluginError | null {
  const id = instanceIdOf(providerID);
  if (id == "") return internal("providerID " + providerID + " is not aws:///<zone>/<instance id>");
  return zoneOf(cfg, describeInstances(aws, [id], []), providerID, out);
}

export function getZoneByNodeName(aws: Aws, cfg: Config, nodeName: string, out: Zone): PluginError | null {
  return zoneOf(cfg, describeInstances(aws, [], [nodeName]), "node " + nodeName, out);
}
