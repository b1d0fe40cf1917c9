// zones: a node's zone and region are its instance's; getZone answers the zone the cloud config names (upstream
// asks for the zone of the machine the CCM runs on, which a sandboxed plugin cannot look up).
import {
  GetZoneByNodeNameRequest,
  GetZoneByProviderIDRequest,
  GetZoneRequest,
  PluginError,
  Zone,
  instanceNotFound,
} from "@wasm-ccm/plugin-sdk";
import { Api, Found } from "./api";
import { Config } from "./config";
import { findByName, findByProviderID, live } from "./instances";

function zoneOf(found: Found, what: string, out: Zone): PluginError | null {
  if (found.error !== null) return found.error;
  const inst = live(found);
  if (inst === null) return instanceNotFound(what + ": no instance (missing or terminated)");
  out.failureDomain = inst.get("zone").asString();
  out.region = inst.get("region").asString();
  return null;
}

export function getZone(config: Config, req: GetZoneRequest, out: Zone): PluginError | null {
  out.failureDomain = config.zone;
  out.region = config.region;
  return null;
}

export function getZoneByProviderID(api: Api, req: GetZoneByProviderIDRequest, out: Zone): PluginError | null {
  return zoneOf(findByProviderID(api, req.providerID), req.providerID, out);
}

export function getZoneByNodeName(api: Api, req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
  return zoneOf(findByName(api, req.nodeName), "node " + req.nodeName, out);
}
