// The module's size cap, and modules shipped gzip-compressed: a ConfigMap holds at most 1 MiB, and a provider with a
// real cloud SDK passes that quickly. A module whose name ends in `.gz`, or whose bytes start with the gzip magic, is
// decompressed before every other check (pin, signature, Wasm), under the cap (`limits.maxModuleMB`, which bounds an
// uncompressed module too): node:zlib stops inflating as soon as the output passes it, so a bomb (1 MiB expanding to
// 1 GiB) costs at most the cap, never the whole expansion. Inflation runs on libuv's thread pool (zlib's async API),
// not on the event loop the controllers share.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

export const DEFAULT_MAX_MODULE_MB = 64;
const GZIP_MAGIC = [0x1f, 0x8b] as const;
const inflate = promisify(gunzip);

export type ModuleGzipErrorCode = 'ModuleTooLarge' | 'ModuleNotGzip' | 'ModuleGzipCorrupt';

export class ModuleGzipError extends Error {
  override name = 'ModuleGzipError';
  readonly code: ModuleGzipErrorCode;
  constructor(code: ModuleGzipErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

export interface UnpackedModule {
  /** The module itself: `bytes` as given when they were not compressed. */
  module: Uint8Array;
  /** The gzip bytes it came from; undefined for a module shipped as is. */
  compressed: Uint8Array | undefined;
}

/**
 * Throws ModuleTooLarge for a module file of `size` bytes over the cap: checked on a file's size before it is read, so
 * an oversized file never reaches memory. A gzip file that large holds a module past the cap too (bar its few bytes of
 * framing over an incompressible module), so it is refused alike.
 */
export function checkModuleSize(size: number, name: string, maxBytes: number): void {
  if (size > maxBytes) {
    throw new ModuleGzipError('ModuleTooLarge', `${name} is larger than ${capText(maxBytes)} (limits.maxModuleMB)`);
  }
}

/**
 * The module in `bytes` (named `name`: a ConfigMap key or a file), decompressed when gzip. Rejects with a
 * ModuleGzipError when a `.gz` name holds no gzip data, the data is corrupt, or it inflates past `maxBytes`.
 */
export async function unpackModule(bytes: Uint8Array, name: string, maxBytes: number): Promise<UnpackedModule> {
  if (!isGzip(bytes)) {
    if (name.endsWith('.gz')) {
      throw new ModuleGzipError('ModuleNotGzip', `${name} ends in .gz but does not start with the gzip magic 1f 8b`);
    }
    checkModuleSize(bytes.byteLength, name, maxBytes);
    return { module: bytes, compressed: undefined };
  }
  let module: Buffer;
  try {
    module = await inflate(bytes, { maxOutputLength: maxBytes });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new ModuleGzipError(
        'ModuleTooLarge',
        `${name} decompresses to more than ${capText(maxBytes)} (limits.maxModuleMB); refused, decompression stopped at the cap`,
      );
    }
    throw new ModuleGzipError('ModuleGzipCorrupt', `${name} is not valid gzip data: ${e.message}`);
  }
  return { module: new Uint8Array(module.buffer, module.byteOffset, module.byteLength), compressed: bytes };
}

function capText(maxBytes: number): string {
  return maxBytes % 1048576 === 0 ? `${maxBytes / 1048576} MiB` : `${maxBytes} bytes`;
}
