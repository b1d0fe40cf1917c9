// Where a plugin's bytes come from, and the integrity check that runs before anything else touches them.
// A gzip-compressed module (a `.gz` name or the gzip magic) is decompressed first, under a cap (module-gzip.ts).
// The digest is computed over exactly the module's bytes (a Uint8Array view, never the whole buffer behind it) and
// is compared before the module is compiled: a tampered module is never handed to the compiler.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { hasWasmHeader } from './module-reader.ts';
import { errorMessage } from '../../util/error-message.ts';
import { moduleFileCap, readRegularFile } from '../../util/read-regular-file.ts';
import { DEFAULT_MAX_MODULE_MB, unpackModule } from './module-gzip.ts';

export type PluginSource = { path: string } | { bytes: Uint8Array; name?: string };

export interface LoadedSource {
  bytes: Uint8Array;
  /** A name for messages: the file name, or the one given with the bytes. */
  label: string;
  /** Lower-case hex SHA-256 of `bytes` (the decompressed module when it came gzipped). */
  sha256: string;
}

export class PluginSourceError extends Error {
  override name = 'PluginSourceError';
}

export async function loadPluginSource(
  source: PluginSource,
  pinnedSha256?: string,
  maxModuleBytes: number = DEFAULT_MAX_MODULE_MB * 1048576,
): Promise<LoadedSource> {
  let bytes: Uint8Array;
  let label: string;
  if ('path' in source) {
    label = basename(source.path);
    try {
      bytes = new Uint8Array(await readRegularFile(source.path, moduleFileCap(maxModuleBytes)));
    } catch (err) {
      throw new PluginSourceError(`cannot read plugin ${source.path}: ${errorMessage(err)}`, { cause: err });
    }
  } else {
    bytes = source.bytes;
    label = source.name ?? 'plugin';
  }
  try {
    bytes = (await unpackModule(bytes, label, maxModuleBytes)).module;
  } catch (err) {
    throw new PluginSourceError(`plugin ${errorMessage(err)}`, { cause: err });
  }
  const sha256 = sha256Hex(bytes);
  if (pinnedSha256 !== undefined) {
    const expected = normalizeDigest(pinnedSha256);
    if (expected !== sha256) {
      throw new PluginSourceError(
        `plugin ${label}: SHA-256 mismatch (pinned ${expected}, got ${sha256}); refusing to load it`,
      );
    }
  }
  if (!hasWasmHeader(bytes)) {
    throw new PluginSourceError(`plugin ${label} is not a WebAssembly module (no \\0asm version 1 header)`);
  }
  return { bytes, label, sha256 };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Accepts `abc…` or `sha256:abc…` (64 hex digits, any case). */
function normalizeDigest(digest: string): string {
  const hex = digest
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new PluginSourceError(`pinned digest '${digest}' is not a SHA-256 hex string`);
  return hex;
}
