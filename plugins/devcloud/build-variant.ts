// Builds a variant of the devcloud plugin that differs from plugins/devcloud/build/devcloud.wasm only in the version
// it reports ("<major>.0.0"), and optionally in one fault (assembly/fault.ts), for hot-swap demos and tests:
//
//   node plugins/devcloud/build-variant.ts [major]     (default 2) -> plugins/devcloud/build/devcloud-v<major>.wasm
//
// `npm run build:plugins` builds one module per plugin directory, so the variant is built here, with the same
// sources and the compiler flag `--use DEVCLOUD_VERSION_MAJOR=<major>` (read by assembly/version.ts).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileAssemblyScript } from '../../plugin-sdk/tools/compile.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const DEVCLOUD_ENTRY = join(HERE, 'assembly', 'index.ts');

export interface VariantOptions {
  /** Where to write the module. Default plugins/devcloud/build/devcloud-v<major>.wasm. */
  outFile?: string;
  /** Reuse an earlier build from this directory while no source changed (tests). */
  cacheDir?: string;
  /** -O3 (default true); false builds faster. */
  optimize?: boolean;
  /** A fault build (assembly/fault.ts): 'hang' never returns from listRoutes, 'trap' traps in getLoadBalancer. */
  fault?: 'hang' | 'trap';
}

const FAULT_CODES = { hang: 1, trap: 2 } as const;

export async function buildDevcloudVariant(
  major: number,
  options: VariantOptions = {},
): Promise<{ wasm: Uint8Array; outFile: string }> {
  if (!Number.isInteger(major) || major < 1 || major > 999) throw new RangeError(`major must be 1..999, got ${major}`);
  const outFile = options.outFile ?? join(HERE, 'build', `devcloud-v${major}.wasm`);
  const result = await compileAssemblyScript(DEVCLOUD_ENTRY, {
    outFile,
    cacheDir: options.cacheDir,
    optimize: options.optimize,
    ascArgs: [
      '--use',
      `DEVCLOUD_VERSION_MAJOR=${major}`,
      ...(options.fault ? ['--use', `DEVCLOUD_FAULT=${FAULT_CODES[options.fault]}`] : []),
    ],
  });
  return { wasm: result.wasm, outFile };
}

if (import.meta.main) {
  const major = Number(process.argv[2] ?? '2');
  const { outFile } = await buildDevcloudVariant(major);
  console.log(`built ${outFile}`);
}
