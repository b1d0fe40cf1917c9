// SOAP 1.1 over the SDK's HTTP and XML reader, the way VMware's vim25 API (vCenter's /sdk) speaks it: a request is
// one element in the envelope's Body, an answer the Body's one child, a failure a soapenv:Fault (HTTP 500) whose detail
// names the fault type (NotAuthenticated, ManagedObjectNotFound...). Managed objects travel as references,
// `<obj type="VirtualMachine">vm-42</obj>`; PropertyCollector answers (RetrievePropertiesEx) as ObjectContent lists.
import { internal, PluginError, retryAfter } from "./errors";
import { HttpClient } from "./http";
import { HttpResult } from "./http-result";
import { XmlElement } from "./xml/element";

export const SOAP_CONTENT_TYPE = "text/xml; charset=utf-8";
export const VIM25_NAMESPACE = "urn:vim25";

const ENVELOPE_START =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"' +
  ' xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
  "<soapenv:Body>";
const ENVELOPE_END = "</soapenv:Body></soapenv:Envelope>";

/**
 * `text` as XML character data or an attribute value: the five special characters as entities, CR, tab and LF as
 * character references (so they survive line-end and attribute-value normalization), and each character XML 1.0
 * cannot carry (C0 controls, U+FFFE, U+FFFF, a lone surrogate) as U+FFFD.
 */
export function xmlEscape(text: string): string {
  let out: string[] | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let replacement: string | null = null;
    if (c == 0x26) replacement = "&amp;";
    else if (c == 0x3c) replacement = "&lt;";
    else if (c == 0x3e) replacement = "&gt;";
    else if (c == 0x22) replacement = "&quot;";
    else if (c == 0x27) replacement = "&apos;";
    else if (c == 0x09) replacement = "&#9;";
    else if (c == 0x0a) replacement = "&#10;";
    else if (c == 0x0d) replacement = "&#13;";
    else if (c < 0x20 || c == 0xfffe || c == 0xffff) replacement = "\uFFFD";
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else replacement = "\uFFFD";
    } else if (c >= 0xdc00 && c <= 0xdfff) replacement = "\uFFFD";
    if (replacement === null) continue;
    if (out === null) out = [];
    out.push(text.substring(from, i));
    out.push(replacement);
    from = i + 1;
  }
  if (out === null) return text;
  out.push(text.substring(from));
  return out.join("");
}

/** A managed object reference: `type` (VirtualMachine, Datacenter...) and its ID (`vm-42`). */
export class MoRef {
  type: string;
  value: string;

  constructor(type: string, value: string) {
    this.type = type;
    this.value = value;
  }

  /** The reference an element holds (`<obj type="VirtualMachine">vm-42</obj>`); null without a type or an ID. */
  static of(el: XmlElement | null): MoRef | null {
    if (el === null) return null;
    // The unprefixed `type`: a property value also carries xsi:type="ManagedObjectReference", whose local name is the
    // same.
    const type = unprefixedAttr(el, "type");
    const value = el.text.trimStart().trimEnd();
    if (type === null || type.length == 0 || value.length == 0) return null;
    return new MoRef(type, value);
  }

  toString(): string {
    return this.type + ":" + this.value;
  }
}

/**
 * One SOAP request, written as it is built: `new SoapRequest("FindByUuid").ref("_this", searchIndex)
 * .ref("datacenter", dc).text("uuid", uuid).text("vmSearch", "true")`. Element names are the caller's (vim25's
 * parameter names); every value and attribute is escaped.
 */
export class SoapRequest {
  readonly method: string;
  private parts: string[] = [];
  private open: string[] = [];

  constructor(method: string, namespace: string = VIM25_NAMESPACE) {
    this.method = method;
    this.parts.push("<" + method + ' xmlns="' + xmlEscape(namespace) + '">');
  }

  /** `<name>value</name>`. */
  text(name: string, value: string): SoapRequest {
    this.parts.push("<" + name + ">" + xmlEscape(value) + "</" + name + ">");
    return this;
  }

  /** `<name type="T">ID</name>`: a managed object reference. */
  ref(name: string, ref: MoRef): SoapRequest {
    this.parts.push("<" + name + ' type="' + xmlEscape(ref.type) + '">' + xmlEscape(ref.value) + "</" + name + ">");
    return this;
  }

  /** Opens `<name>`, or `<name xsi:type="T">` for a value of a subtype (TraversalSpec in a selectSet). */
  begin(name: string, xsiType: string = ""): SoapRequest {
    this.parts.push("<" + name + (xsiType.length > 0 ? ' xsi:type="' + xmlEscape(xsiType) + '"' : "") + ">");
    this.open.push(name);
    return this;
  }

  /** Closes the element begin() opened last. */
  end(): SoapRequest {
    assert(this.open.length > 0, "SoapRequest.end() without begin()");
    this.parts.push("</" + this.open.pop() + ">");
    return this;
  }

  /** The whole envelope. */
  toString(): string {
    assert(this.open.length == 0, "SoapRequest: an element begun is not ended");
    return ENVELOPE_START + this.parts.join("") + "</" + this.method + ">" + ENVELOPE_END;
  }
}

/** A soapenv:Fault: `type` is the vim25 fault (NotAuthenticated, ManagedObjectNotFound, ...), "" when none is named. */
export class SoapFault {
  code: string = "";
  message: string = "";
  type: string = "";
  /** The fault object (detail's child), for its fields (`obj` of ManagedObjectNotFound, ...). */
  detail: XmlElement | null = null;

  /**
   * As a provider error: NotAuthenticated (the host's session expired or was dropped; the host logs in again) and
   * the server's own "try later" faults are Retry, the rest Internal, naming `what` and the fault.
   */
  toPluginError(what: string): PluginError {
    const text = what + ": " + (this.type.length > 0 ? this.type + ": " : "") + this.message;
    if (this.type == "NotAuthenticated" || this.type == "RequestCanceled" || this.type == "HostCommunication") {
      return retryAfter(5, text);
    }
    return internal(text);
  }
}

/** A SOAP call's outcome: `body` (the Body's child) or `fault` or, when neither could be read, `error`. */
export class SoapAnswer {
  body: XmlElement | null = null;
  fault: SoapFault | null = null;
  error: PluginError | null = null;
  status: i32 = 0;

  get ok(): bool {
    return this.body !== null;
  }

  /** The failure as a provider error (fault or transport); null for a good answer. */
  toPluginError(what: string): PluginError | null {
    const fault = this.fault;
    if (fault !== null) return fault.toPluginError(what);
    return this.error;
  }
}

/** POSTs `request` to `path` of `client` with `soapAction` (vim25: "urn:vim25/<version>") and reads the answer. */
export function callSoap(client: HttpClient, path: string, request: SoapRequest, soapAction: string): SoapAnswer {
  const headers = new Map<string, string>();
  headers.set("content-type", SOAP_CONTENT_TYPE);
  headers.set("soapaction", soapAction);
  return readSoapAnswer(client.request("POST", path, request.toString(), headers));
}

/** The answer of a SOAP POST: the Body's child, the fault, or why there is neither. */
export function readSoapAnswer(res: HttpResult): SoapAnswer {
  const out = new SoapAnswer();
  out.status = res.status;
  if (res.error !== null) {
    out.error = res.toPluginError();
    return out;
  }
  const doc = res.xml();
  let first: XmlElement | null = null;
  if (doc !== null && doc.name == "Envelope") {
    const body = doc.child("Body");
    if (body !== null) first = firstChild(body);
  }
  if (first === null) {
    const why = doc === null ? "the answer is not XML: " + XmlElement.lastError() : "the answer is no SOAP envelope";
    out.error = res.ok ? internal(res.method + " " + res.url + ": " + why) : res.toPluginError();
    return out;
  }
  if (first.name == "Fault") out.fault = readFault(first);
  else if (res.ok) out.body = first;
  else out.error = res.toPluginError();
  return out;
}

export function readFault(fault: XmlElement): SoapFault {
  const out = new SoapFault();
  out.code = fault.childText("faultcode").trimStart().trimEnd();
  out.message = fault.childText("faultstring").trimStart().trimEnd();
  const detail = fault.child("detail");
  const object: XmlElement | null = detail !== null ? firstChild(detail) : null;
  if (object !== null) {
    out.detail = object;
    const type = xsiType(object);
    if (type !== null) out.type = type;
    else out.type = object.name.endsWith("Fault") ? object.name.substring(0, object.name.length - 5) : object.name;
  }
  return out;
}

/** An attribute written without a prefix (`type`, not `xsi:type`). */
function unprefixedAttr(el: XmlElement, name: string): string | null {
  for (let i = 0; i < el.attributes.length; i++) {
    if (el.attributes[i].qname == name) return el.attributes[i].value;
  }
  return null;
}

/**
 * The local part of an element's xsi:type (`NotAuthenticated` of `xsi:type="vim25:NotAuthenticated"`): a prefixed
 * attribute named `type`, whatever the prefix (namespaces are not resolved; vim25 binds no other prefix to a `type`).
 */
export function xsiType(el: XmlElement): string | null {
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes[i];
    if (a.name == "type" && a.qname != "type") return localPart(a.value);
  }
  return null;
}

function firstChild(el: XmlElement): XmlElement | null {
  return el.children.length > 0 ? el.children[0] : null;
}

function localPart(qname: string): string {
  const colon = qname.indexOf(":");
  return colon < 0 ? qname : qname.substring(colon + 1);
}

/** One object of a PropertyCollector answer: its reference, the properties it has, and those it could not give. */
export class ObjectContent {
  obj: MoRef = new MoRef("", "");
  /** Property path -> its `val` element (read with childText, children, MoRef.of...). */
  props: Map<string, XmlElement> = new Map();
  /** Property path -> the fault type that kept it back (NoPermission, ...). */
  missing: Map<string, string> = new Map();

  prop(path: string): XmlElement | null {
    return this.props.has(path) ? this.props.get(path) : null;
  }

  /** A property's text (trimmed); "" when the object does not have it. */
  propText(path: string): string {
    const val = this.prop(path);
    return val === null ? "" : val.text.trimStart().trimEnd();
  }
}

/** A RetrievePropertiesEx / ContinueRetrievePropertiesEx answer: the objects, and the token of the next page. */
export class RetrieveResult {
  objects: ObjectContent[] = [];
  /** "" when this was the last page. */
  token: string = "";
  /** An object without a readable reference; "" when every one has one. */
  error: string = "";
}

/** Reads the Body's child of a RetrievePropertiesEx(Response) or ContinueRetrievePropertiesEx(Response). */
export function readRetrieveResult(response: XmlElement): RetrieveResult {
  const out = new RetrieveResult();
  // An empty result is a response with no returnval at all.
  const returnval = response.child("returnval");
  if (returnval === null) return out;
  out.token = returnval.childText("token").trimStart().trimEnd();
  const objects = returnval.childrenNamed("objects");
  for (let i = 0; i < objects.length; i++) {
    const content = new ObjectContent();
    const ref = MoRef.of(objects[i].child("obj"));
    if (ref === null) {
      out.error = "objects[" + i.toString() + "] has no obj reference";
      return out;
    }
    content.obj = ref;
    const props = objects[i].childrenNamed("propSet");
    for (let k = 0; k < props.length; k++) {
      const val = props[k].child("val");
      if (val !== null) content.props.set(props[k].childText("name").trimStart().trimEnd(), val);
    }
    const missing = objects[i].childrenNamed("missingSet");
    for (let k = 0; k < missing.length; k++) {
      let type = "";
      const fault = missing[k].child("fault");
      const cause: XmlElement | null = fault !== null ? fault.child("fault") : null;
      if (cause !== null) {
        const causeType = xsiType(cause);
        if (causeType !== null) type = causeType;
      }
      content.missing.set(missing[k].childText("path").trimStart().trimEnd(), type);
    }
    out.objects.push(content);
  }
  return out;
}
