// Runs a vendor's commands (npm, npx, the installed wasm-ccm) the way a vendor's shell would: in their project, with
// an environment of their own (no variable of the repository's, no PATH entry inside it, only the Node 24 binary's
// directory first), the machine's npm cache, and every module resolution of every Node process recorded by a
// --import hook that lives outside the repository.
import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The repository's tree, and where its node_modules really lives (it may be a link). */
export function repositoryRoots(): string[] {
  const roots = [REPO_ROOT, realpathSync(REPO_ROOT), realpathSync(join(REPO_ROOT, 'node_modules'))];
  return [...new Set(roots.map((r) => (r.endsWith(sep) ? r : r + sep)))];
}

// Module hooks apply to the thread that registers them, and plugin workers are started with execArgv of their own:
// the hook also records the entry file of every worker thread, whose own imports are relative to it.
const HOOK = `import { appendFileSync } from 'node:fs';
import { createRequire, registerHooks, syncBuiltinESMExports } from 'node:module';
const log = process.env.VENDOR_RESOLUTION_LOG;
const record = (url) => log && appendFileSync(log, url + '\\n');
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    record(resolved.url);
    return resolved;
  },
});
const threads = createRequire(import.meta.url)('node:worker_threads');
const Worker = threads.Worker;
threads.Worker = class extends Worker {
  constructor(entry, options) {
    record(entry instanceof URL ? entry.href : String(entry));
    super(entry, options);
  }
};
syncBuiltinESMExports();
`;

export interface VendorShell {
  env: Record<string, string>;
  /** Every module URL a Node process of the vendor's resolved, in order. */
  resolutions(): string[];
}

/** An environment for `home` (a temporary directory): its own resolution log and hook, a PATH outside the repo. */
export function vendorShell(home: string): VendorShell {
  const hook = join(home, 'resolution-hook.mjs');
  const log = join(home, 'resolutions.log');
  writeFileSync(hook, HOOK);
  writeFileSync(log, '');
  const roots = repositoryRoots();
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => p !== '' && !roots.some((root) => `${p}${sep}`.startsWith(root)));
  const env: Record<string, string> = {
    PATH: [dirname(process.execPath), ...path].join(':'),
    HOME: process.env.HOME ?? home,
    NODE_OPTIONS: `--import=${hook}`,
    VENDOR_RESOLUTION_LOG: log,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // The machine's trust settings, as a vendor's shell has them: without them npm cannot reach the registry
    // through a TLS-inspecting proxy for the packages the machine's cache lacks.
    ...passThrough(['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE']),
  };
  return {
    env,
    resolutions: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
  };
}

export interface CommandResult {
  code: number;
  output: string;
}

/** Runs a command to its end; resolves with its exit code and its stdout and stderr together. */
export function run(
  shell: VendorShell,
  cwd: string,
  command: string,
  args: readonly string[],
  timeoutMs = 110_000,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { cwd, env: shell.env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** Resolutions that land in the repository's tree (file: URLs only; node: builtins are not files). */
export function resolutionsInsideRepository(urls: readonly string[]): string[] {
  const roots = repositoryRoots();
  return urls.filter((u) => u.startsWith('file:') && roots.some((root) => fileURLToPath(u).startsWith(root)));
}

function passThrough(names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
