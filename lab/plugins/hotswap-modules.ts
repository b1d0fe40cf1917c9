// The modules the hot-swap tests and benchmark offer to a running CCM: the devcloud plugin as `npm run build:plugins`
// built it (v1), its version variant (v2, same sources, version "2.0.0"), and two broken "devcloud"s from
// lab/plugins/hotswap/assembly (ccm_initialize traps; ABI 2.0); and a version variant of the OpenStack plugin. Builds are
// cached under lab/plugins/hotswap/build.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeUnsigned } from '../../host/src/plugin/index.ts';
import { compileAssemblyScript } from '../../plugin-sdk/tools/compile.ts';
import { buildDevcloudVariant } from '../../plugins/devcloud/build-variant.ts';
import { builtPlugin } from './built-plugins.ts';

const HERE = import.meta.dirname;
const BUILD = join(HERE, 'hotswap', 'build');
const CACHE = join(BUILD, 'cache');

export interface HotswapModules {
  v1: Uint8Array;
  v2: Uint8Array;
  trapInit: Uint8Array;
  abiV2: Uint8Array;
}

let built: Promise<HotswapModules> | undefined;

export function hotswapModules(): Promise<HotswapModules> {
  built ??= (async () => {
    const v1 = new Uint8Array(readFileSync(builtPlugin('devcloud')));
    const { wasm: v2 } = await buildDevcloudVariant(2, { outFile: join(BUILD, 'devcloud-v2.wasm'), cacheDir: CACHE });
    // Compilations run one at a time within a process (the compiler keeps global state).
    const trapInit = (
      await compileAssemblyScript(join(HERE, 'hotswap', 'assembly', 'trap-init.ts'), {
        optimize: false,
        cacheDir: CACHE,
        // A fault module: it traps in ccm_initialize and never serves the capability it declares.
        checkCapabilities: false,
      })
    ).wasm;
    const abiV2 = (
      await compileAssemblyScript(join(HERE, 'hotswap', 'assembly', 'abi-v2.ts'), {
        optimize: false,
        cacheDir: CACHE,
        // A fault module: refused for its ABI major before any capability is used.
        checkCapabilities: false,
      })
    ).wasm;
    return { v1, v2, trapInit, abiV2 };
  })();
  return built;
}

const OPENSTACK_ENTRY = join(HERE, '..', '..', 'plugins', 'openstack', 'assembly', 'index.ts');

/**
 * The OpenStack plugin built from its sources with `--use OPENSTACK_VERSION_MAJOR=<major>`: the module
 * `npm run build:plugins` builds, but for the version it reports ("<major>.0.0"). Cached under lab/plugins/hotswap/build.
 */
export async function openStackVariant(major: number): Promise<Uint8Array> {
  if (!Number.isInteger(major) || major < 2 || major > 999) throw new RangeError(`major must be 2..999, got ${major}`);
  const { wasm } = await compileAssemblyScript(OPENSTACK_ENTRY, {
    cacheDir: CACHE,
    ascArgs: ['--use', `OPENSTACK_VERSION_MAJOR=${major}`],
  });
  return wasm;
}

/** An Ed25519 key pair playing the vendor's release key. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  sign(bytes: Uint8Array): string;
}

export function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign: (bytes) => sign(null, bytes, privateKey).toString('base64'),
  };
}

/**
 * `module` grown to `totalBytes` with a custom section (ignored by the runtime, kept by the checks): a stand-in for a
 * provider with a real cloud SDK. The padding is pseudo-random over four letters, so it compresses about 3.5:1, as
 * code does, rather than to nothing.
 */
export function paddedModule(module: Uint8Array, totalBytes: number): Uint8Array {
  const name = new TextEncoder().encode('wasm-ccm.padding');
  // Section header: id 0, the body size, the name's length and the name (5 + 1 bytes of LEB128 at most).
  const payloadBytes = totalBytes - module.length - 6 - name.length - 1;
  const payload = new Uint8Array(payloadBytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < payloadBytes; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    payload[i] = 0x61 + (x & 3);
  }
  const head = new Uint8Array([...encodeUnsigned(name.length), ...name]);
  const parts = [module, Uint8Array.of(0), encodeUnsigned(head.length + payloadBytes), head, payload];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
