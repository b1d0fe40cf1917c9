// Ed25519 signatures over a plugin's exact bytes. A digest pin fixes one module forever; a signature lets the vendor
// ship new modules that a cluster accepts without editing its configuration, while anything not signed by the
// configured key (a tampered or half-copied module) is refused before it is compiled.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { errorMessage } from '../../util/error-message.ts';

export class SignatureError extends Error {
  override name = 'SignatureError';
}

/** Parses a PEM (SPKI) public key and insists on Ed25519: an RSA or EC key here is a configuration mistake. */
export function parseEd25519PublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new SignatureError(`not a PEM public key (${errorMessage(err)})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SignatureError(`expected an Ed25519 public key, got ${key.asymmetricKeyType ?? 'an unknown key type'}`);
  }
  return key;
}

/** Decodes a base64 signature (surrounding whitespace and newlines allowed); Ed25519 signatures are 64 bytes. */
export function decodeSignature(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new SignatureError('signature is not base64');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length !== 64) throw new SignatureError(`an Ed25519 signature is 64 bytes, this one is ${bytes.length}`);
  return bytes;
}

/** Throws SignatureError unless `signature` (base64) is `key`'s Ed25519 signature of exactly `bytes`. */
export function verifyPluginSignature(bytes: Uint8Array, signature: string, key: KeyObject): void {
  const raw = decodeSignature(signature);
  // Ed25519 takes no digest algorithm (null): it hashes the message itself.
  if (!verify(null, bytes, key, raw)) {
    throw new SignatureError('Ed25519 signature does not match the module (not signed by the configured key)');
  }
}
