// Ed25519 signatures over a module's exact bytes: accepted only from the configured key, over exactly those bytes.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeSignature,
  parseEd25519PublicKey,
  SignatureError,
  verifyPluginSignature,
} from '../../../host/src/plugin/module/ed25519.ts';

const vendor = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const VENDOR_PEM = vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const MODULE = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 42]);

function signed(bytes: Uint8Array, key = vendor.privateKey): string {
  return sign(null, bytes, key).toString('base64');
}

describe('plugin signatures', () => {
  const key = parseEd25519PublicKey(VENDOR_PEM);

  it('accepts the vendor key signature of exactly these bytes, with line breaks around it', () => {
    expect(() => verifyPluginSignature(MODULE, signed(MODULE), key)).not.toThrow();
    const wrapped = signed(MODULE).replace(/(.{40})/, '$1\n') + '\n';
    expect(() => verifyPluginSignature(MODULE, wrapped, key)).not.toThrow();
  });

  it('refuses a module changed by one byte', () => {
    const tampered = MODULE.slice();
    tampered[8] = 43;
    expect(() => verifyPluginSignature(tampered, signed(MODULE), key)).toThrow(
      'Ed25519 signature does not match the module',
    );
  });

  it('refuses a signature made with another key', () => {
    expect(() => verifyPluginSignature(MODULE, signed(MODULE, stranger.privateKey), key)).toThrow(SignatureError);
  });

  it('checks a subarray view by its own bytes, not the buffer behind it', () => {
    const backing = new Uint8Array([9, 9, ...MODULE, 9]);
    const view = backing.subarray(2, 2 + MODULE.length);
    expect(() => verifyPluginSignature(view, signed(MODULE), key)).not.toThrow();
  });

  it('refuses text that is not a 64-byte base64 signature', () => {
    expect(() => decodeSignature('')).toThrow('signature is not base64');
    expect(() => decodeSignature('@@@@')).toThrow('signature is not base64');
    expect(() => decodeSignature(Buffer.alloc(63).toString('base64'))).toThrow('is 64 bytes, this one is 63');
    expect(decodeSignature(Buffer.alloc(64, 7).toString('base64'))).toEqual(Buffer.alloc(64, 7));
  });

  it('takes only Ed25519 public keys', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(() => parseEd25519PublicKey(ec.toString())).toThrow('expected an Ed25519 public key, got ec');
    expect(() => parseEd25519PublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toThrow(
      'not a PEM public key',
    );
    // A private key is not a public key the operator meant to configure, but Node derives the public half: allowed.
    const fromPrivate = vendor.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(parseEd25519PublicKey(fromPrivate).asymmetricKeyType).toBe('ed25519');
  });
});
