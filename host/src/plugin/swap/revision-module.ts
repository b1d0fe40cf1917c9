// A revision's module as every check sees it: decompressed when it came gzipped (a `.gz` key or file, or the gzip
// magic), under the provider's limits.maxModuleMB. The pin and the signature are over the decompressed module, so
// the same module verifies whether it ships compressed or not; a signature over the compressed bytes is refused
// with a message that says so, since re-compressing (another gzip level or version) would change those bytes.
import { basename } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { ProviderConfig } from '../config/types.ts';
import { SignatureError, verifyPluginSignature } from '../module/ed25519.ts';
import { DEFAULT_MAX_MODULE_MB, unpackModule } from '../module/module-gzip.ts';
import type { SourceRevision } from './source.ts';

export interface RevisionModule {
  /** The revision with `bytes` the module itself. */
  revision: SourceRevision;
  /** The gzip bytes it was shipped as; undefined for a module shipped as is. */
  compressed: Uint8Array | undefined;
}

/** The provider's cap on a module, decompressed or not (limits.maxModuleMB). */
export function maxModuleBytes(config: ProviderConfig): number {
  return (config.limits.maxModuleMB ?? DEFAULT_MAX_MODULE_MB) * 1024 * 1024;
}

/** Rejects with a ModuleGzipError when the revision is not a module the cap allows. */
export async function unpackRevision(config: ProviderConfig, revision: SourceRevision): Promise<RevisionModule> {
  const source = config.source;
  const name = source.kind === 'configMap' ? source.key : basename(source.path);
  const { module, compressed } = await unpackModule(revision.bytes, name, maxModuleBytes(config));
  return { revision: compressed ? { ...revision, bytes: module } : revision, compressed };
}

/** verifyPluginSignature over the module; names the mistake when the signature is over the compressed bytes. */
export function verifyModuleSignature(unpacked: RevisionModule, signature: string, key: KeyObject): void {
  try {
    verifyPluginSignature(unpacked.revision.bytes, signature, key);
  } catch (err) {
    if (!(err instanceof SignatureError) || unpacked.compressed === undefined) throw err;
    try {
      verifyPluginSignature(unpacked.compressed, signature, key);
    } catch {
      throw err;
    }
    throw new SignatureError(
      'the signature is over the gzip-compressed bytes; sign the decompressed module (the .wasm before gzip)',
    );
  }
}
