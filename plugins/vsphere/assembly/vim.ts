// vim25 over SOAP at https://<vCenter>/sdk: the few calls a node lookup needs (the service content, SearchIndex's
// FindByUuid / FindByIp / FindAllByDnsName / FindByInventoryPath, PropertyCollector's RetrievePropertiesEx). The
// plugin never logs in: the host's vsphere credentials entry attaches the session cookie to /sdk requests.
import {
  callSoap,
  HttpClient,
  internal,
  MoRef,
  ObjectContent,
  PluginError,
  readRetrieveResult,
  SoapAnswer,
  SoapRequest,
} from "@wasm-ccm/plugin-sdk";

// vCenter 7.0 U3 and 8.x speak it; the calls used here have been in vim25 since 4.0.
const SOAP_ACTION = "urn:vim25/7.0.3.0";
const SERVICE_INSTANCE = new MoRef("ServiceInstance", "ServiceInstance");
// One page of RetrievePropertiesEx; a node lookup reads a handful of objects, the datacenter list a few dozen.
const MAX_OBJECTS = "500";

export class Refs {
  refs: MoRef[] = [];
  error: PluginError | null = null;
}

export class Ref {
  ref: MoRef | null = null;
  error: PluginError | null = null;
}

export class Contents {
  objects: ObjectContent[] = [];
  error: PluginError | null = null;
}

/** One vCenter's /sdk endpoint, with the service content read once per instance. */
export class Vim {
  readonly url: string;
  private client: HttpClient;
  private rootFolder: MoRef | null = null;
  private propertyCollector: MoRef | null = null;
  private searchIndex: MoRef | null = null;

  constructor(url: string, timeoutMs: i32) {
    this.url = url;
    this.client = new HttpClient(url).withTimeout(timeoutMs);
  }

  call(request: SoapRequest): SoapAnswer {
    return callSoap(this.client, "/sdk", request, SOAP_ACTION);
  }

  private fail(answer: SoapAnswer, request: SoapRequest): PluginError {
    const error = answer.toPluginError("vSphere " + request.method + " at " + this.url);
    return error !== null ? error : internal("vSphere " + request.method + " at " + this.url + ": no answer");
  }

  /** RetrieveServiceContent, once: where the root folder, the property collector and the search index are. */
  private serviceContent(): PluginError | null {
    if (this.searchIndex !== null) return null;
    const request = new SoapRequest("RetrieveServiceContent").ref("_this", SERVICE_INSTANCE);
    const answer = this.call(request);
    if (!answer.ok) return this.fail(answer, request);
    const content = answer.body!.child("returnval");
    let root: MoRef | null = null;
    let pc: MoRef | null = null;
    let si: MoRef | null = null;
    if (content !== null) {
      root = MoRef.of(content.child("rootFolder"));
      pc = MoRef.of(content.child("propertyCollector"));
      si = MoRef.of(content.child("searchIndex"));
    }
    if (root === null || pc === null || si === null) {
      return internal(
        "vSphere RetrieveServiceContent at " + this.url + ": no rootFolder, propertyCollector or searchIndex",
      );
    }
    this.rootFolder = root;
    this.propertyCollector = pc;
    this.searchIndex = si;
    return null;
  }

  /** SearchIndex.FindByUuid(datacenter, uuid, vmSearch=true): a VM by its BIOS UUID; null when there is none. */
  findByUuid(datacenter: MoRef, uuid: string): Ref {
    return this.findOne("FindByUuid", datacenter, "uuid", uuid);
  }

  /** SearchIndex.FindByIp(datacenter, ip, vmSearch=true). */
  findByIp(datacenter: MoRef, ip: string): Ref {
    return this.findOne("FindByIp", datacenter, "ip", ip);
  }

  /** SearchIndex.FindAllByDnsName(datacenter, name, vmSearch=true): every VM whose guest reports that name. */
  findAllByDnsName(datacenter: MoRef, dnsName: string): Refs {
    const out = new Refs();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest("FindAllByDnsName").ref("_this", this.searchIndex!).ref("datacenter", datacenter);
    request.text("dnsName", dnsName).text("vmSearch", "true");
    const answer = this.call(request);
    if (!answer.ok) {
      out.error = this.fail(answer, request);
      return out;
    }
    const found = answer.body!.childrenNamed("returnval");
    for (let i = 0; i < found.length; i++) {
      const ref = MoRef.of(found[i]);
      if (ref !== null) out.refs.push(ref);
    }
    return out;
  }

  /** SearchIndex.FindByInventoryPath: a datacenter by its path from the root folder ("DC0", "folder/DC0"). */
  findByInventoryPath(path: string): Ref {
    const out = new Ref();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest("FindByInventoryPath").ref("_this", this.searchIndex!).text("inventoryPath", path);
    return this.answerRef(request);
  }

  /** A SearchIndex method over one datacenter's VMs answering one reference (or none). */
  private findOne(method: string, datacenter: MoRef, param: string, value: string): Ref {
    const out = new Ref();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest(method).ref("_this", this.searchIndex!).ref("datacenter", datacenter);
    request.text(param, value).text("vmSearch", "true");
    return this.answerRef(request);
  }

  private answerRef(request: SoapRequest): Ref {
    const out = new Ref();
    const answer = this.call(request);
    if (!answer.ok) {
      out.error = this.fail(answer, request);
      return out;
    }
    out.ref = MoRef.of(answer.body!.child("returnval"));
    return out;
  }

  /** The properties `paths` of `objects` (all of one type); an object that no longer exists is left out. */
  properties(objects: MoRef[], type: string, paths: string[]): Contents {
    const out = new Contents();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest("RetrievePropertiesEx").ref("_this", this.propertyCollector!).begin("specSet");
    propSet(request, type, paths);
    for (let i = 0; i < objects.length; i++) {
      request.begin("objectSet").ref("obj", objects[i]).text("skip", "false").end();
    }
    request.end().begin("options").text("maxObjects", MAX_OBJECTS).end();
    return this.retrieve(request);
  }

  /**
   * `start` and every managed entity above it (by `parent`), nearest first: upstream's mo.Ancestors, read in one
   * RetrievePropertiesEx with a traversal along `parent`.
   */
  ancestors(start: MoRef): Contents {
    const out = new Contents();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest("RetrievePropertiesEx").ref("_this", this.propertyCollector!).begin("specSet");
    propSet(request, "ManagedEntity", ["name", "parent"]);
    request.begin("objectSet").ref("obj", start).text("skip", "false");
    request.begin("selectSet", "TraversalSpec").text("name", "parentTraversal").text("type", "ManagedEntity");
    request.text("path", "parent").text("skip", "false");
    request.begin("selectSet").text("name", "parentTraversal").end();
    request.end().end().end().begin("options").text("maxObjects", MAX_OBJECTS).end();
    const got = this.retrieve(request);
    if (got.error !== null) return got;
    out.objects = chainFrom(start, got.objects);
    return out;
  }

  /** Every Datacenter under the root folder (a datacenter may sit in folders; none sits in another). */
  datacenters(): Contents {
    const out = new Contents();
    out.error = this.serviceContent();
    if (out.error !== null) return out;
    const request = new SoapRequest("RetrievePropertiesEx").ref("_this", this.propertyCollector!).begin("specSet");
    propSet(request, "Datacenter", ["name"]);
    request.begin("objectSet").ref("obj", this.rootFolder!).text("skip", "true");
    request.begin("selectSet", "TraversalSpec").text("name", "folderTraversal").text("type", "Folder");
    request.text("path", "childEntity").text("skip", "false");
    request.begin("selectSet").text("name", "folderTraversal").end();
    request.end().end().end().begin("options").text("maxObjects", MAX_OBJECTS).end();
    return this.retrieve(request);
  }

  /** A RetrievePropertiesEx and its ContinueRetrievePropertiesEx pages. */
  private retrieve(request: SoapRequest): Contents {
    const out = new Contents();
    let next: SoapRequest | null = request;
    while (next !== null) {
      const answer = this.call(next);
      if (!answer.ok) {
        const fault = answer.fault;
        // An object deleted between the search and the read: the caller finds it missing.
        if (fault !== null && fault.type == "ManagedObjectNotFound") return out;
        out.error = this.fail(answer, next);
        return out;
      }
      const page = readRetrieveResult(answer.body!);
      if (page.error != "") {
        out.error = internal("vSphere " + next.method + " at " + this.url + ": " + page.error);
        return out;
      }
      for (let i = 0; i < page.objects.length; i++) out.objects.push(page.objects[i]);
      next =
        page.token == ""
          ? null
          : new SoapRequest("ContinueRetrievePropertiesEx")
              .ref("_this", this.propertyCollector!)
              .text("token", page.token);
    }
    return out;
  }
}

function propSet(request: SoapRequest, type: string, paths: string[]): void {
  request.begin("propSet").text("type", type);
  for (let i = 0; i < paths.length; i++) request.text("pathSet", paths[i]);
  request.end();
}

/** The objects of an ancestor traversal ordered from `start` up its parent chain. */
function chainFrom(start: MoRef, objects: ObjectContent[]): ObjectContent[] {
  const out: ObjectContent[] = [];
  let want: MoRef | null = start;
  while (want !== null && out.length <= objects.length) {
    let found: ObjectContent | null = null;
    for (let i = 0; i < objects.length; i++) {
      if (objects[i].obj.type == want.type && objects[i].obj.value == want.value) found = objects[i];
    }
    if (found === null) break;
    out.push(found);
    want = MoRef.of(found.prop("parent"));
  }
  return out;
}
