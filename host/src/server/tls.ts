// The serving certificate: the operator's files, or a self-signed ECDSA certificate made at start-up (what
// upstream does when --tls-cert-file is empty), so health and metrics are never served in clear text.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { parseIP } from '../net/cidr.ts';
import {
  bitString,
  boolean,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  utf8String,
} from './der.ts';

export interface ServingCertificate {
  cert: string;
  key: string;
  selfSigned: boolean;
}

export function loadServingCertificate(certFile: string, keyFile: string): ServingCertificate {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), selfSigned: false };
}

const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_COMMON_NAME = '2.5.4.3';
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';
const OID_EXT_KEY_USAGE = '2.5.29.37';
const OID_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

function ipBytes(text: string): Buffer {
  const { family, value } = parseIP(text);
  const hex = value.toString(16).padStart(family === 'IPv4' ? 8 : 32, '0');
  return Buffer.from(hex, 'hex');
}

function pem(label: string, der: Buffer): string {
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** A self-signed P-256 certificate for `localhost`, the host name, 127.0.0.1, ::1 and `extraNames` (DNS or IPs). */
export function selfSignedCertificate(extraNames: readonly string[] = [], now = new Date()): ServingCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const names = new Set(['localhost', hostname(), '127.0.0.1', '::1', ...extraNames]);
  const generalNames = [...names].map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))));
  const algorithm = sequence(oid(OID_ECDSA_SHA256));
  const name = sequence(
    set(sequence(oid(OID_COMMON_NAME), utf8String(`wasm-ccm@${Math.floor(now.getTime() / 1000)}`))),
  );
  const extensions = sequence(
    sequence(oid(OID_BASIC_CONSTRAINTS), boolean(true), octetString(sequence())),
    sequence(oid(OID_EXT_KEY_USAGE), octetString(sequence(oid(OID_SERVER_AUTH)))),
    sequence(oid(OID_SUBJECT_ALT_NAME), octetString(sequence(...generalNames))),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(randomBytes(16)),
    algorithm,
    name,
    sequence(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + 365 * 24 * 3600_000))),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const cert = sequence(tbs, algorithm, bitString(signature));
  return {
    cert: pem('CERTIFICATE', cert),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    selfSigned: true,
  };
}
