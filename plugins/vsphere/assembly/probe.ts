// Test module for test/unit/vsphere/logic.test.ts, not part of the plugin (whose entry is index.ts): the plugin's pure
// parts (vsphere.conf, UUID order, instance types, address choice) driven by JSON input, answering JSON.
import { Host } from "@extism/as-pdk";
import { JsonValue, JsonWriter, NodeAddress } from "@wasm-ccm/plugin-sdk";
import { discoverAddresses } from "./addresses";
import { Config, parseConfig } from "./config";
import { instanceType } from "./instance-type";
import { convertK8sUUID, Nic } from "./vms";

function output(v: JsonValue): i32 {
  const w = new JsonWriter();
  v.write(w);
  Host.output(w.toBytes());
  return 0;
}

function strings(list: string[]): JsonValue {
  const out = JsonValue.newArray();
  for (let i = 0; i < list.length; i++) out.push(JsonValue.ofString(list[i]));
  return out;
}

/** vsphere.conf text -> what was read, or {"error": "..."}. */
export function config_probe(): i32 {
  const parsed = parseConfig(String.UTF8.decode(Host.input().buffer));
  if (parsed.error !== null)
    return output(JsonValue.newObject().set("error", JsonValue.ofString(parsed.error!.message)));
  const c: Config = parsed.config;
  const vcenters = JsonValue.newArray();
  for (let i = 0; i < c.vcenters.length; i++) {
    const v = c.vcenters[i];
    vcenters.push(
      JsonValue.newObject()
        .set("name", JsonValue.ofString(v.name))
        .set("url", JsonValue.ofString(v.url))
        .set("datacenters", strings(v.datacenters))
        .set("ipFamilies", strings(v.ipFamilies)),
    );
  }
  const n = c.nodes;
  const nodes = JsonValue.newObject()
    .set("internalSubnets", JsonValue.ofNumber(n.internalSubnets.length))
    .set("externalSubnets", JsonValue.ofNumber(n.externalSubnets.length))
    .set("excludeInternalSubnets", JsonValue.ofNumber(n.excludeInternalSubnets.length))
    .set("excludeExternalSubnets", JsonValue.ofNumber(n.excludeExternalSubnets.length))
    .set("internalNetworkName", JsonValue.ofString(n.internalNetworkName))
    .set("externalNetworkName", JsonValue.ofString(n.externalNetworkName));
  return output(
    JsonValue.newObject()
      .set("format", JsonValue.ofString(c.format))
      .set("vcenters", vcenters)
      .set("zone", JsonValue.ofString(c.zoneCategory))
      .set("region", JsonValue.ofString(c.regionCategory))
      .set("nodes", nodes)
      .set("notes", strings(c.notes)),
  );
}

/** {"uuids": [...]} -> {"converted": [...]}. */
export function uuid_probe(): i32 {
  const uuids = JsonValue.parseBytes(Host.input())!.get("uuids");
  const out: string[] = [];
  for (let i = 0; i < uuids.length; i++) out.push(convertK8sUUID(uuids.at(i).asString()));
  return output(JsonValue.newObject().set("converted", strings(out)));
}

/** {"numCpu", "memoryMB", "guestId"} -> {"instanceType"}. */
export function instance_type_probe(): i32 {
  const v = JsonValue.parseBytes(Host.input())!;
  const type = instanceType(v.get("numCpu").asI32(), v.get("memoryMB").asI32(), v.get("guestId").asString());
  return output(JsonValue.newObject().set("instanceType", JsonValue.ofString(type)));
}

/** {"config": vsphere.conf, "hostName", "nics": [{network, deviceConfigId, ips}]} -> {"addresses": ["Type addr"], "error"}. */
export function addresses_probe(): i32 {
  const v = JsonValue.parseBytes(Host.input())!;
  const c = parseConfig(v.get("config").asString()).config;
  const nics: Nic[] = [];
  const given = v.get("nics");
  for (let i = 0; i < given.length; i++) {
    const nic = new Nic();
    nic.network = given.at(i).get("network").asString();
    nic.deviceConfigId = given.at(i).get("deviceConfigId").asI32();
    const ips = given.at(i).get("ips");
    for (let k = 0; k < ips.length; k++) nic.ips.push(ips.at(k).asString());
    nics.push(nic);
  }
  const got = discoverAddresses(v.get("hostName").asString(), nics, c.vcenters[0].ipFamilies, c.nodes);
  const list: string[] = [];
  for (let i = 0; i < got.addresses.length; i++) {
    const a: NodeAddress = got.addresses[i];
    list.push(a.type + " " + a.address);
  }
  return output(JsonValue.newObject().set("addresses", strings(list)).set("error", JsonValue.ofString(got.error)));
}
