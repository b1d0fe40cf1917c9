// Test module for the SOAP helpers (plugin-sdk/assembly/soap.ts): test/unit/sdk/soap.test.ts and the SOAP fuzzer in
// lab/fuzz/soap drive it with JSON batches.
import { Host } from "@extism/as-pdk";
import {
  JsonValue,
  JsonWriter,
  MoRef,
  ObjectContent,
  readFault,
  readRetrieveResult,
  SoapRequest,
  XmlElement,
} from "@wasm-ccm/plugin-sdk";

function output(w: JsonWriter): i32 {
  Host.output(w.toBytes());
  return 0;
}

/** {"values": [...]} -> {"envelopes": [...]}: each value as a parameter's text and as a reference's type and ID. */
export function soap_write(): i32 {
  const values = JsonValue.parseBytes(Host.input())!.get("values");
  const w = new JsonWriter();
  w.beginObject();
  w.key("envelopes");
  w.beginArray();
  for (let i = 0; i < values.length; i++) {
    const v = values.at(i).asString();
    const request = new SoapRequest("Probe").text("text", v).ref("ref", new MoRef(v, v));
    request.begin("outer", v.length > 0 ? "T" + i.toString() : "").text("inner", v).end();
    w.string(request.toString());
  }
  w.endArray();
  w.endObject();
  return output(w);
}

/** {"docs": [...]} -> {"answers": [...]}: each document read as a SOAP answer (see writeAnswer). */
export function soap_read(): i32 {
  const docs = JsonValue.parseBytes(Host.input())!.get("docs");
  const w = new JsonWriter();
  w.beginObject();
  w.key("answers");
  w.beginArray();
  for (let i = 0; i < docs.length; i++) writeAnswer(w, XmlElement.parse(docs.at(i).asString()));
  w.endArray();
  w.endObject();
  return output(w);
}

/** {"kind": "fault", type, code, message} or {"kind": "result", token, error, objects: [{obj, props, missing}]}. */
function writeAnswer(w: JsonWriter, doc: XmlElement | null): void {
  w.beginObject();
  let first: XmlElement | null = null;
  if (doc !== null && doc.name == "Envelope") {
    const body = doc.child("Body");
    if (body !== null && body.children.length > 0) first = body.children[0];
  }
  if (first === null) {
    w.key("kind");
    w.string("none");
  } else if (first.name == "Fault") {
    const fault = readFault(first);
    w.key("kind");
    w.string("fault");
    w.key("type");
    w.string(fault.type);
    w.key("code");
    w.string(fault.code);
    w.key("message");
    w.string(fault.message);
  } else {
    const result = readRetrieveResult(first);
    w.key("kind");
    w.string("result");
    w.key("token");
    w.string(result.token);
    w.key("error");
    w.string(result.error);
    w.key("objects");
    w.beginArray();
    for (let i = 0; i < result.objects.length; i++) writeObject(w, result.objects[i]);
    w.endArray();
  }
  w.endObject();
}

function writeObject(w: JsonWriter, o: ObjectContent): void {
  w.beginObject();
  w.key("obj");
  w.string(o.obj.toString());
  w.key("props");
  w.beginObject();
  const names = o.props.keys();
  for (let i = 0; i < names.length; i++) {
    w.key(names[i]);
    const val = o.props.get(names[i]);
    const ref = MoRef.of(val);
    w.string(ref !== null && val.children.length == 0 ? "ref " + ref.toString() : "text " + val.text.trimStart().trimEnd());
  }
  w.endObject();
  w.key("missing");
  w.beginObject();
  const paths = o.missing.keys();
  for (let i = 0; i < paths.length; i++) {
    w.key(paths[i]);
    w.string(o.missing.get(paths[i]));
  }
  w.endObject();
  w.endObject();
}
