// Compiles an AssemblyScript plugin (or a test module) with the SDK's preset, in process. Used by
// scripts/build-plugins.ts and by tests that build small modules on the fly. See plugin-sdk/README.md, "Build".
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forbiddenImports, listImports, type ModuleImport } from './imports.ts';

/** The SDK's own directory: what `@wasm-ccm/plugin-sdk` resolves to inside AssemblyScript sources. */
export const SDK_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = `@wasm-ccm/plugin-sdk`;
// A directory that does not exist on disk: package lookups land here and are answered from SDK_DIR, so plugins import
// the SDK by its package name whether or not it is installed in a node_modules folder.
const VIRTUAL_PACKAGES = join(SDK_DIR, '.packages');
const VIRTUAL_ENTRY = '__ccm_sdk_entry.ts';

/** The transform that refuses a declared capability with a method left to the SDK's NotImplemented default. */
export const CAPABILITY_CHECK = fileURLToPath(
  new URL(`./capability-check${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
);

const CAPABILITY_ARGS: readonly string[] = ['--transform', CAPABILITY_CHECK];

/** Compiler flags every plugin needs (the same as plugin-sdk/asconfig.json). */
export const PRESET_ARGS: readonly string[] = [
  '--use',
  'abort=__ccm_abort',
  '--runtime',
  'incremental',
  ...CAPABILITY_ARGS,
];

export interface CompileOptions {
  /** Also write the module to this path (directories are created). */
  outFile?: string;
  /** Optimize (-O3, the default) or not (faster to build, for throw-away test modules). */
  optimize?: boolean;
  /** Extra asc arguments, appended after the preset. */
  ascArgs?: readonly string[];
  /** Fail when the module imports something the host does not provide (default true). */
  checkImports?: boolean;
  /**
   * Fail when a provider declares a capability without overriding each of its methods (default true; false for test
   * modules that are partial providers on purpose).
   */
  checkCapabilities?: boolean;
  /**
   * Reuse a module compiled earlier into this directory when nothing it could depend on changed (the sources next to
   * the entry, the SDK's sources, the options and the compiler version). Meant for tests.
   */
  cacheDir?: string;
}

export interface CompileResult {
  wasm: Uint8Array;
  imports: ModuleImport[];
  elapsedMs: number;
  /** What asc printed for a successful build (notes and warnings); '' for a clean one or a cached module. */
  diagnostics: string;
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

/** .ts and .json files under `dir` (not build/, node_modules/ or dot folders), in a stable order. */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === 'build' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|json)$/.test(entry.name)) out.push(path);
  }
  return out;
}

function ascVersion(): string {
  const pkg = createRequire(import.meta.url).resolve('assemblyscript/package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/**
 * A hash of everything a build of a module whose sources live in `dirs` depends on: those sources, the SDK's sources,
 * the compiler version and `extra` (the options). Equal hashes mean an earlier output can be reused.
 */
export function buildInputsHash(dirs: readonly string[], extra: string): string {
  const h = createHash('sha256');
  h.update(`asc ${ascVersion()}\n${PRESET_ARGS.join(' ')}\n${extra}\n`);
  for (const file of new Set([...dirs.flatMap((d) => sourceFiles(d)), ...sourceFiles(SDK_DIR)])) {
    h.update(`${file}\n`);
    h.update(readFileSync(file));
  }
  return h.digest('hex');
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
  let cached: string | null = null;
  if (options.cacheDir !== undefined) {
    const key = JSON.stringify([
      entry,
      options.optimize,
      options.ascArgs,
      options.checkImports,
      options.checkCapabilities,
    ]);
    const hash = buildInputsHash([dirname(entry)], key).slice(0, 20);
    cached = join(options.cacheDir, `${basename(entry, '.ts')}-${hash}.wasm`);
    if (existsSync(cached)) {
      const wasm = new Uint8Array(readFileSync(cached));
      if (options.outFile !== undefined) writeOut(options.outFile, wasm);
      return { wasm, imports: listImports(wasm), elapsedMs: performance.now() - started, diagnostics: '' };
    }
  }
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
    ...(options.checkCapabilities === false ? PRESET_ARGS.filter((a) => !CAPABILITY_ARGS.includes(a)) : PRESET_ARGS),
    ...(options.optimize === false ? [] : ['-O3']),
    ...(options.ascArgs ?? []),
  ];
  // Loaded on first use: the compiler takes a while to load, and up-to-date checks should not pay for it.
  const { default: asc } = await import('assemblyscript/asc');
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
  if (options.outFile !== undefined) writeOut(options.outFile, bytes);
  if (cached !== null) writeOut(cached, bytes);
  return { wasm: bytes, imports, elapsedMs: performance.now() - started, diagnostics };
}

// Written under a temporary name and renamed: test files run in parallel processes and may read a module while
// another process writes it; a rename makes them see the old file or the new one, never half of one.
export function writeOut(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
}
