// Compiles an AssemblyScript plugin (or a test module) with the SDK's preset, in process. Used by
// scripts/build-plugins.ts and by tests that build small modules on the fly. See plugin-sdk/README.md, "Building".
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';
import { forbiddenImports, listImports, type ModuleImport } from './imports.ts';

/** The SDK's own directory: what `@wasm-ccm/plugin-sdk` resolves to inside AssemblyScript sources. */
export const SDK_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = `@wasm-ccm/plugin-sdk`;
// A directory that does not exist on disk: package lookups land here and are answered from SDK_DIR, so plugins import
// the SDK by its package name whether or not it is installed in a node_modules folder.
const VIRTUAL_PACKAGES = join(SDK_DIR, '.packages');
const VIRTUAL_ENTRY = '__ccm_sdk_entry.ts';

/** Compiler flags every plugin needs (the same as plugin-sdk/asconfig.json). */
export const PRESET_ARGS: readonly string[] = ['--use', 'abort=__ccm_abort', '--runtime', 'incremental'];

export interface CompileOptions {
  /** Also write the module to this path (directories are created). */
  outFile?: string;
  /** Optimize (-O3, the default) or not (faster to build, for throw-away test modules). */
  optimize?: boolean;
  /** Extra asc arguments, appended after the preset. */
  ascArgs?: readonly string[];
  /** Fail when the module imports something the host does not provide (default true). */
  checkImports?: boolean;
}

export interface CompileResult {
  wasm: Uint8Array;
  imports: ModuleImport[];
  elapsedMs: number;
}

export class CompileError extends Error {
  /** The compiler's diagnostics, as printed by asc. */
  readonly diagnostics: string;
  constructor(message: string, diagnostics: string) {
    super(diagnostics ? `${message}\n${diagnostics}` : message);
    this.name = 'CompileError';
    this.diagnostics = diagnostics;
  }
}

function asPdkNodeModules(): string {
  const pkg = createRequire(import.meta.url).resolve('@extism/as-pdk/package.json');
  return dirname(dirname(dirname(pkg))); // .../node_modules/@extism/as-pdk/package.json -> .../node_modules
}

// Maps a path asc asks for to the file to read: the SDK's package name goes to SDK_DIR wherever asc looks for it.
function mapPath(abs: string): string {
  const marker = `${sep}${PACKAGE.replace('/', sep)}${sep}`;
  const at = abs.lastIndexOf(marker);
  if (at >= 0 && (abs.startsWith(VIRTUAL_PACKAGES) || abs.slice(0, at).endsWith(`${sep}node_modules`))) {
    return join(SDK_DIR, abs.slice(at + marker.length));
  }
  return abs;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Compiles `entry` (an AssemblyScript file; `@wasm-ccm/plugin-sdk` imports resolve to this SDK) into a Wasm module.
 * Rejects with a CompileError carrying asc's diagnostics, or naming the forbidden imports.
 * Compilations run one at a time: the compiler keeps global state.
 */
export function compileAssemblyScript(entry: string, options: CompileOptions = {}): Promise<CompileResult> {
  const run = queue.then(() => compileNow(resolve(entry), options));
  queue = run.catch(() => undefined);
  return run;
}

async function compileNow(entry: string, options: CompileOptions): Promise<CompileResult> {
  const started = performance.now();
  const baseDir = dirname(entry);
  let wasm: Uint8Array | null = null;
  const stderr: string[] = [];
  const args = [
    VIRTUAL_ENTRY,
    relative(baseDir, entry),
    '--baseDir',
    baseDir,
    '--outFile',
    'out.wasm',
    '--path',
    VIRTUAL_PACKAGES,
    '--path',
    asPdkNodeModules(),
    ...PRESET_ARGS,
    ...(options.optimize === false ? [] : ['-O3']),
    ...(options.ascArgs ?? []),
  ];
  const result = await asc.main(args, {
    readFile(name: string, dir: string): string | null {
      if (name === VIRTUAL_ENTRY) return `import "${PACKAGE}/assembly/host/abort";\n`;
      if (name === 'asconfig.json') return null; // the preset is given as arguments; ignore stray configs
      try {
        return readFileSync(mapPath(resolve(dir, name)), 'utf8');
      } catch {
        return null;
      }
    },
    writeFile(name: string, contents: Uint8Array | string): void {
      if (name === 'out.wasm' && typeof contents !== 'string') wasm = contents;
    },
    listFiles: () => [],
    stdout: { write: () => true } as never,
    stderr: {
      write(chunk: Uint8Array | string): boolean {
        stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      },
    } as never,
  });
  const diagnostics = stderr.join('').trim();
  if (result.error || wasm === null) {
    throw new CompileError(`asc failed to compile ${entry}: ${result.error?.message ?? 'no output'}`, diagnostics);
  }
  const bytes: Uint8Array = wasm;
  const imports = listImports(bytes);
  if (options.checkImports !== false) {
    const bad = forbiddenImports(imports);
    if (bad.length > 0) {
      throw new CompileError(`${entry} compiles to a module with imports the host does not provide:`, bad.join('\n'));
    }
  }
  if (options.outFile !== undefined) {
    mkdirSync(dirname(options.outFile), { recursive: true });
    writeFileSync(options.outFile, bytes);
  }
  return { wasm: bytes, imports, elapsedMs: performance.now() - started };
}
