// A Classic ELB's listeners as cloud-provider-aws builds them (its buildListener): TCP to the NodePort, or, on the
// ports the ssl-ports annotation names (every port when it is absent or "*") of a Service with an ssl-cert, SSL to TCP
// with the certificate; backend-protocol changes the pair (https or http behind HTTPS, ssl or tcp behind SSL), and
// without a certificate "http" makes an HTTP listener. Also the listener annotations' other two readings: the SSL
// negotiation policy and proxy protocol, read strictly (a value upstream would send AWS to refuse is Invalid here).
import { invalid, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { ClbListener } from "./clb-api";

const PREFIX = "service.beta.kubernetes.io/aws-load-balancer-";
export const SSL_CERT = PREFIX + "ssl-cert";
export const SSL_PORTS = PREFIX + "ssl-ports";
export const SSL_POLICY = PREFIX + "ssl-negotiation-policy";
export const PROXY_PROTOCOL = PREFIX + "proxy-protocol";
export const BACKEND_PROTOCOL = PREFIX + "backend-protocol";

/** Upstream's backendProtocolMapping: the front protocol for each back-end one behind a certificate. */
function frontFor(backend: string): string {
  if (backend == "https" || backend == "http") return "https";
  if (backend == "ssl" || backend == "tcp") return "ssl";
  return "";
}

export class ClbTls {
  certificate: string = "";
  /** Empty: every port (the annotation absent, empty or "*"). */
  sslPortNumbers: i32[] = [];
  sslPortNames: string[] = [];
  /** As written (upstream compares it case-sensitively); "" when absent. */
  backendProtocol: string = "";
  /** The ssl-negotiation-policy annotation's policy ("" when absent). */
  sslPolicy: string = "";
  proxyProtocol: bool = false;

  /** Whether `port` (number and name) gets the certificate. */
  isSslPort(port: i32, name: string): bool {
    if (this.sslPortNumbers.length == 0 && this.sslPortNames.length == 0) return true;
    return this.sslPortNumbers.includes(port) || this.sslPortNames.includes(name.toLowerCase());
  }
}

function bad(name: string, value: string, want: string): PluginError {
  return invalid("annotation " + name + ': "' + value + '" is not valid: want ' + want);
}

/** Reads the listener annotations into `tls`; the first bad one is the error. */
export function readClbTls(a: Map<string, string>, tls: ClbTls): PluginError | null {
  if (a.has(SSL_CERT)) tls.certificate = a.get(SSL_CERT).trimStart().trimEnd();
  if (a.has(BACKEND_PROTOCOL)) {
    const p = a.get(BACKEND_PROTOCOL);
    // Upstream looks the value up as written: "HTTP" behind a certificate fails there, so it is refused here always.
    if (p != "" && frontFor(p) == "") return bad(BACKEND_PROTOCOL, p, "http, https, ssl or tcp (lower case)");
    tls.backendProtocol = p;
  }
  if (a.has(SSL_PORTS)) {
    const text = a.get(SSL_PORTS);
    if (text != "" && text != "*") {
      const parts = text.split(",");
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i].trimStart().trimEnd();
        if (part == "") continue;
        if (isDigits(part)) tls.sslPortNumbers.push(I32.parseInt(part));
        else tls.sslPortNames.push(part.toLowerCase());
      }
    }
  }
  if (a.has(SSL_POLICY)) {
    tls.sslPolicy = a.get(SSL_POLICY).trimStart().trimEnd();
    if (tls.sslPolicy == "") return bad(SSL_POLICY, "", "the name of an ELB security policy (ELBSecurityPolicy-TLS-1-2-2017-01, ...)");
  }
  if (a.has(PROXY_PROTOCOL) && a.get(PROXY_PROTOCOL) != "") {
    if (a.get(PROXY_PROTOCOL) != "*") return bad(PROXY_PROTOCOL, a.get(PROXY_PROTOCOL), "* (every back-end port; the only value upstream supports)");
    tls.proxyProtocol = true;
  }
  return null;
}

function isDigits(s: string): bool {
  if (s.length == 0 || s.length > 5) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x30 || s.charCodeAt(i) > 0x39) return false;
  return true;
}

/** A listener per Service port with a NodePort, lower case as upstream sends them (ELB answers upper case). */
export function buildListeners(service: Service, tls: ClbTls): ClbListener[] {
  const out: ClbListener[] = [];
  for (let i = 0; i < service.ports.length; i++) {
    const p = service.ports[i];
    if (p.nodePort == 0) continue;
    const l = new ClbListener();
    l.protocol = p.protocol.toLowerCase();
    l.instanceProtocol = l.protocol;
    l.port = p.port;
    l.instancePort = p.nodePort;
    if (tls.certificate != "" && tls.isSslPort(p.port, p.name)) {
      if (tls.backendProtocol == "") {
        l.protocol = "ssl";
        l.instanceProtocol = "tcp";
      } else {
        l.protocol = frontFor(tls.backendProtocol);
        l.instanceProtocol = tls.backendProtocol;
      }
      l.sslCertificateId = tls.certificate;
    } else if (tls.backendProtocol == "http") {
      l.protocol = "http";
      l.instanceProtocol = "http";
    }
    out.push(l);
  }
  return out;
}

/** The health check's protocol when no annotation names one: SSL for an https or ssl back end, as upstream. */
export function defaultCheckProtocol(a: Map<string, string>): string {
  const p = a.has(BACKEND_PROTOCOL) ? a.get(BACKEND_PROTOCOL).toLowerCase() : "";
  return p == "https" || p == "ssl" ? "SSL" : "TCP";
}
