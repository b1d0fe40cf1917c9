// What every generated export (exports.generated.ts) does around the provider method: read and decode the request,
// answer Invalid when it does not decode, write the envelope as UTF-8 bytes.
import { ErrorCode } from "../abi/types.generated";
import { InitializeRequest } from "../abi/types.generated";
import { setCloudConfig } from "../config";
import { internal, PluginError } from "../errors";
import { readInput, writeOutput } from "../host/io";
import { JsonReader } from "../json/reader";
import { JsonWriter } from "../json/writer";
import { Provider, registeredProvider } from "../provider";

export function startCall(): JsonReader {
  return new JsonReader(readInput());
}

export function writeError(err: PluginError): void {
  const w = new JsonWriter(64 + err.message.length);
  w.beginObject();
  w.key("error");
  err.encode(w);
  w.endObject();
  writeOutput(w);
}

/**
 * The provider to serve a call whose request `r` has been decoded; null when the call was answered already (the
 * request did not decode: Invalid naming the path; no provider registered: Internal).
 */
export function providerFor(r: JsonReader): Provider | null {
  r.finish();
  const e = r.error;
  if (e !== null) {
    writeError(new PluginError(ErrorCode.Invalid, "request" + e));
    return null;
  }
  const p = registeredProvider();
  if (p === null) {
    writeError(internal("no provider registered: call registerProvider(new MyProvider()) in the plugin's entry file"));
  }
  return p;
}

export function rememberInitialize(req: InitializeRequest): void {
  setCloudConfig(req.cloudConfig, req.clusterName);
}

/** Writes the envelope: the error if there is one, else {"ok": out}. */
export function answer<T>(err: PluginError | null, out: T): void {
  if (err !== null) {
    writeError(err);
    return;
  }
  const w = new JsonWriter(256);
  w.beginObject();
  w.key("ok");
  out.encode(w);
  w.endObject();
  writeOutput(w);
}
