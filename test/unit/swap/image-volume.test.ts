// A module mounted from an image volume (Kubernetes 1.36: an OCI image or artifact mounted read-only into the pod)
// through the file source: plain files, no kubelet `..data` symlinks, a directory nobody writes. The host reads the
// module and its `.sig` there, checks the pin and the signature, serves it, and writes nothing beside it.
import { generateKeyPairSync, sign } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { FileSource } from '../../../host/src/plugin/swap/file-source.ts';
import { HotSwapper } from '../../../host/src/plugin/swap/hot-swapper.ts';
import { createSwapMetrics } from '../../../host/src/plugin/swap/swap-metrics.ts';
import { fakeLoader, moduleOf, node, providerConfig, sha256 } from './fakes.ts';

const vendor = generateKeyPairSync('ed25519');

/** name -> mtime of every entry under `dir`: what a write of any kind would change. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) out[name] = statSync(join(dir, name)).mtimeMs;
  return out;
}

describe('file source on an image volume', () => {
  let root: string;
  let mount: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wasm-ccm-image-'));
    mount = join(root, 'plugins');
    mkdirSync(mount);
    const module = moduleOf('1.0.0');
    writeFileSync(join(mount, 'provider.wasm'), module);
    writeFileSync(join(mount, 'provider.wasm.sig'), `${sign(null, module, vendor.privateKey).toString('base64')}\n`);
    // As the kubelet mounts it: read-only files in a read-only directory.
    for (const f of ['provider.wasm', 'provider.wasm.sig']) chmodSync(join(mount, f), 0o444);
    chmodSync(mount, 0o555);
  });

  afterEach(() => {
    chmodSync(mount, 0o755);
    rmSync(root, { recursive: true, force: true });
  });

  it('reads the module and its signature from plain read-only files', async () => {
    const source = new FileSource({ path: join(mount, 'provider.wasm') });
    const first = await source.start(() => {});
    await source.stop();
    expect(first.bytes).toEqual(moduleOf('1.0.0'));
    expect(first.signature).toBe(sign(null, moduleOf('1.0.0'), vendor.privateKey).toString('base64'));
    expect(first.origin).toBe(`file ${join(mount, 'provider.wasm')}`);
  });

  it('serves it under a digest pin and the vendor signature, writing nothing beside it', async () => {
    const before = snapshot(mount);
    const path = join(mount, 'provider.wasm');
    const swapper = await HotSwapper.start({
      config: providerConfig({
        source: { kind: 'file', path },
        sha256: sha256(moduleOf('1.0.0')),
        signature: { publicKey: vendor.publicKey, signature: undefined },
      }),
      source: new FileSource({ path }),
      load: fakeLoader(),
      metrics: createSwapMetrics(new Registry()),
      logger: silentLogger,
    });
    const metadata = await swapper.provider.instancesV2()?.instanceMetadata(node('n'));
    await swapper.stop();
    expect(metadata?.instanceType).toBe('1.0.0');
    expect(snapshot(mount)).toEqual(before);
  });
});
