// Zones: the configured zone (or the host's, from the instance metadata service) for the CCM's own, else the instance's
// placement, with the configured region (cloud-provider-aws answers its own region too).
import { instanceNotFound, internal, PluginError, Zone } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import { describeByNodeName, describeInstances, instanceIdOf, InstancesResult } from "./instances";

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
  return zoneOf(cfg, describeByNodeName(aws, nodeName), "node " + nodeName, out);
}

/** The zone ID label cloud-provider-aws adds to a Node (`use1-az6`): zone names map to different zones per account. */
export const LABEL_ZONE_ID = "topology.k8s.aws/zone-id";

export class ZoneIdResult {
  zoneId: string = "";
  error: PluginError | null = null;
}

/** Zone name -> zone ID, as the account sees them; they never change, so each is asked once. */
const zoneIds = new Map<string, string>();

/** The zone ID of a zone name (DescribeAvailabilityZones); an unknown zone is an error, as upstream's cache has it. */
export function zoneIdOf(aws: Aws, zone: string): ZoneIdResult {
  const out = new ZoneIdResult();
  if (zoneIds.has(zone)) {
    out.zoneId = zoneIds.get(zone);
    return out;
  }
  const answer = aws.callEc2(aws.ec2Request("DescribeAvailabilityZones").addList("ZoneName", [zone]));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const items = answer.root!.path("availabilityZoneInfo/item");
  for (let k = 0; k < items.length; k++) {
    if (items[k].childText("zoneName") == zone) out.zoneId = items[k].childText("zoneId");
  }
  if (out.zoneId == "") {
    out.error = internal("DescribeAvailabilityZones has no zone ID for " + zone);
    return out;
  }
  zoneIds.set(zone, out.zoneId);
  return out;
}
