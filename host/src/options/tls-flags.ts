// --tls-cipher-suites, --tls-min-version and --tls-curve-preferences take Go's crypto/tls names (as every Kubernetes
// component does); Node's TLS takes OpenSSL's. These tables translate, and a name without an equivalent here is an
// error naming it, as an unknown suite is upstream.
import { getCiphers, type SecureContextOptions } from 'node:tls';

// IANA name (what component-base's flag takes) -> OpenSSL name. TLS 1.3 suites keep their IANA names in OpenSSL.
const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
};
// Go always enables its TLS 1.3 suites whatever the list says; OpenSSL reads them from the same list, so they are
// added to keep TLS 1.3 working as it does upstream.
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

const MIN_VERSIONS: Readonly<Record<string, SecureContextOptions['minVersion']>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

// Go's tls.CurveID numbers -> OpenSSL group names.
const CURVES: Readonly<Record<string, string>> = {
  '23': 'P-256',
  '24': 'P-384',
  '25': 'P-521',
  '29': 'X25519',
  '4588': 'X25519MLKEM768',
};

// What this process's OpenSSL offers (3DES, for one, is not built into OpenSSL 3's default provider).
let available: ReadonlySet<string> | undefined;
function offered(openssl: string): boolean {
  available ??= new Set(getCiphers());
  return available.has(openssl.toLowerCase());
}

export function checkCipherSuites(names: readonly string[]): void {
  const unknown = names.find((n) => !Object.hasOwn(CIPHER_SUITES, n));
  if (unknown !== undefined) throw new Error(`Cipher suite ${unknown} not supported or doesn't exist`);
  const missing = names.find((n) => !offered(CIPHER_SUITES[n] as string));
  if (missing !== undefined) throw new Error(`Cipher suite ${missing} is not offered by this build's OpenSSL`);
}

export function checkTlsMinVersion(name: string): void {
  if (name !== '' && !Object.hasOwn(MIN_VERSIONS, name)) {
    throw new Error(`unknown tls version "${name}" (${Object.keys(MIN_VERSIONS).join(', ')})`);
  }
}

export function checkCurvePreferences(ids: readonly string[]): void {
  const unknown = ids.find((id) => !Object.hasOwn(CURVES, id));
  if (unknown !== undefined) {
    throw new Error(`unknown curve ID ${unknown} (supported: ${Object.keys(CURVES).join(', ')})`);
  }
}

export interface TlsFlagValues {
  cipherSuites: readonly string[];
  minVersion: string;
  curvePreferences: readonly string[];
}

/** Node TLS options for the flags' values; empty values leave Node's defaults, as empty flags leave Go's. */
export function tlsServerOptions(values: TlsFlagValues): SecureContextOptions {
  const options: SecureContextOptions = {};
  if (values.cipherSuites.length > 0) {
    const openssl = values.cipherSuites.map((n) => CIPHER_SUITES[n] as string);
    options.ciphers = [...new Set([...TLS13_SUITES, ...openssl])].join(':');
  }
  if (values.minVersion !== '') options.minVersion = MIN_VERSIONS[values.minVersion];
  if (values.curvePreferences.length > 0) {
    options.ecdhCurve = values.curvePreferences.map((id) => CURVES[id] as string).join(':');
  }
  return options;
}
