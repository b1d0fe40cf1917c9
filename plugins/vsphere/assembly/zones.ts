// Zones and regions from vSphere tags, as cloud-provider-vsphere reads them: the tags attached to the VM's host and
// its ancestors (cluster, host folder, datacenter, folders), nearest first, through the REST tagging API at
// /rest/com/vmware/cis/tagging; a tag whose category is labels.zone names the zone, one of labels.region the region,
// and a farther ancestor's tag replaces a nearer one's until both are known. When the host's ancestry lacks either,
// the VM's resource pool and then the VM itself are asked the same way. The host attaches the REST session
// (vmware-api-session-id) to these requests.
import {
  encodeComponent,
  HttpClient,
  internal,
  JsonValue,
  MoRef,
  ObjectContent,
  PluginError,
} from "@wasm-ccm/plugin-sdk";
import { Config } from "./config";
import { Vm } from "./vms";

const TAGGING = "/rest/com/vmware/cis/tagging";

export class ZoneResult {
  zone: string = "";
  region: string = "";
  error: PluginError | null = null;
}

/** What one call learned about tags and categories (IDs to names), so each is read once. */
class TagCache {
  tagNames: Map<string, string> = new Map();
  tagCategories: Map<string, string> = new Map();
  categoryNames: Map<string, string> = new Map();
}

export function zoneOf(vm: Vm, config: Config, timeoutMs: i32): ZoneResult {
  const out = new ZoneResult();
  // Upstream answers an empty zone unless both categories are configured.
  if (config.zoneCategory == "" || config.regionCategory == "") return out;
  const rest = new HttpClient(vm.vcenter.url).withHeader("accept", "application/json").withTimeout(timeoutMs);
  const cache = new TagCache();
  const starts: Array<MoRef | null> = [vm.host, vm.resourcePool, vm.ref];
  let last: ZoneResult | null = null;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i];
    if (start === null) continue;
    last = lookupFrom(vm, rest, cache, start, config);
    if (last.error === null) return last;
  }
  if (last === null)
    out.error = internal("VM " + vm.ref.value + " has no host, resource pool or reference to look zones up by");
  return last !== null ? last : out;
}

/** Upstream's LookupZoneByMoref: the tags of `start` and its ancestors. */
function lookupFrom(vm: Vm, rest: HttpClient, cache: TagCache, start: MoRef, config: Config): ZoneResult {
  const out = new ZoneResult();
  const chain = vm.vim.ancestors(start);
  if (chain.error !== null) {
    out.error = chain.error;
    return out;
  }
  for (let i = 0; i < chain.objects.length; i++) {
    const tags = attachedTags(rest, chain.objects[i]);
    // An object whose tags cannot be listed is skipped, as upstream does.
    if (tags === null) continue;
    for (let t = 0; t < tags.length; t++) {
      const category = categoryOf(rest, cache, tags[t]);
      if (category.error !== null) {
        out.error = category.error;
        return out;
      }
      if (category.category == config.zoneCategory) out.zone = category.tag;
      else if (category.category == config.regionCategory) out.region = category.tag;
      if (out.zone != "" && out.region != "") return out;
    }
  }
  const what = start.type + ":" + start.value;
  if (out.region == "")
    out.error = internal("vSphere region category " + config.regionCategory + " does not match any tags for " + what);
  else out.error = internal("vSphere zone category " + config.zoneCategory + " does not match any tags for " + what);
  return out;
}

/** The IDs of the tags attached to an object; null when they could not be listed. */
function attachedTags(rest: HttpClient, o: ObjectContent): string[] | null {
  const body = JsonValue.newObject().set(
    "object_id",
    JsonValue.newObject().set("id", JsonValue.ofString(o.obj.value)).set("type", JsonValue.ofString(o.obj.type)),
  );
  const res = rest.post(TAGGING + "/tag-association?~action=list-attached-tags", body);
  const doc = res.ok ? res.json() : null;
  if (doc === null) return null;
  const value = doc.get("value");
  const out: string[] = [];
  for (let i = 0; i < value.length; i++) out.push(value.at(i).asString());
  return out;
}

class TagCategory {
  tag: string = "";
  category: string = "";
  error: PluginError | null = null;
}

function categoryOf(rest: HttpClient, cache: TagCache, tagID: string): TagCategory {
  const out = new TagCategory();
  if (!cache.tagNames.has(tagID)) {
    const tag = getValue(rest, "/tag/id:" + encodeComponent(tagID));
    if (tag.error !== null) {
      out.error = tag.error;
      return out;
    }
    cache.tagNames.set(tagID, tag.value.get("name").asString());
    cache.tagCategories.set(tagID, tag.value.get("category_id").asString());
  }
  out.tag = cache.tagNames.get(tagID);
  const categoryID = cache.tagCategories.get(tagID);
  if (!cache.categoryNames.has(categoryID)) {
    const category = getValue(rest, "/category/id:" + encodeComponent(categoryID));
    if (category.error !== null) {
      out.error = category.error;
      return out;
    }
    cache.categoryNames.set(categoryID, category.value.get("name").asString());
  }
  out.category = cache.categoryNames.get(categoryID);
  return out;
}

class Value {
  value: JsonValue = JsonValue.ofNull();
  error: PluginError | null = null;
}

function getValue(rest: HttpClient, path: string): Value {
  const out = new Value();
  const res = rest.get(TAGGING + path);
  const doc = res.ok ? res.json() : null;
  if (doc === null) {
    out.error = res.ok ? internal("GET " + res.url + ": the answer is not JSON") : res.toPluginError();
    return out;
  }
  out.value = doc.get("value");
  return out;
}
