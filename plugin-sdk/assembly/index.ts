// @wasm-ccm/plugin-sdk: everything a provider plugin imports. The Wasm exports come from "@wasm-ccm/plugin-sdk/exports".
import "./host/abort";

export * from "./abi/types.generated";
export { CloudConfig, IniConfig, PluginConfig } from "./config";
export { IniEntry, IniFile, IniSection, parseIni } from "./gcfg";
export { Cidr, compareIP, isIPv4Mapped, isIPv6, parseCIDR, parseIP } from "./ip";
export { MAX_SLEEP_MS, nowMs, nowSeconds, sleepMs } from "./clock";
export { answerExists, answerShutdown, answerStatus, ExistsOf, ShutdownOf } from "./batch-answers";
export {
  implementedElsewhere,
  instanceNotFound,
  internal,
  invalid,
  nodeError,
  notImplemented,
  PluginError,
  retryAfter,
} from "./errors";
export { HttpClient, send } from "./http";
export { HttpResult } from "./http-result";
export { fields, Log } from "./log";
export { Provider, registerProvider } from "./provider";
export { JsonReader, mapOfJson, quote } from "./json/reader";
export { JsonKind, JsonValue } from "./json/value";
export { JsonWriter } from "./json/writer";
export { encodeComponent, Query, urlPath } from "./url";
export { FORM_CONTENT_TYPE, QueryRequest } from "./query-protocol";
export { localName, XML_MAX_DEPTH, XmlAttribute, XmlEvent, XmlReader } from "./xml/reader";
export { XmlElement } from "./xml/element";
export {
  callSoap,
  MoRef,
  ObjectContent,
  readFault,
  readRetrieveResult,
  readSoapAnswer,
  RetrieveResult,
  SOAP_CONTENT_TYPE,
  SoapAnswer,
  SoapFault,
  SoapRequest,
  VIM25_NAMESPACE,
  xmlEscape,
  xsiType,
} from "./soap";
export { annotationFloat, annotationInt, AnnotationNumber, isStrictFloat, isStrictInteger } from "./annotations";
