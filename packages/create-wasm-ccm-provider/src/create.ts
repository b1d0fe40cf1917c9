// create-wasm-ccm-provider <dir> [--capabilities=instancesV2,loadBalancer,routes,zones] [--name=NAME]
//   [--packages=DIR] [--cloud-host=HOST:PORT]
// Writes a provider project that builds, passes its own unit tests and, against its cloud, the conformance kit.
// --packages takes the wasm-ccm packages from a release's tarballs instead of the registry. The package's bin
// (bin/create-wasm-ccm-provider.cjs, written by `npm run pack`) checks the Node.js version, then calls createMain.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CapabilityError, DEFAULT_CAPABILITIES, parseCapabilities, TEMPLATE_CAPABILITIES } from './capabilities.ts';
import {
  asconfigJson,
  cloudJson,
  credentialsJson,
  DEVCLOUD_INSTANCES,
  devcloudInstancesJson,
  fixtureYaml,
  GITIGNORE,
  packageJson,
  type ProjectOptions,
  type Tarballs,
} from './project-files.ts';
import { indexSource, nameSource, PROVIDER_NAME } from './provider-source.ts';
import { readmeSource } from './readme.ts';
import { unitTestSource } from './unit-test.ts';
import { currentVersions } from './versions.ts';

const TEMPLATE = join(import.meta.dirname, '..', 'template', 'assembly');
const USAGE = `usage: create-wasm-ccm-provider <dir> [--capabilities=${DEFAULT_CAPABILITIES.join(',')}] [--name=NAME]
       [--packages=DIR with the release tarballs] [--cloud-host=HOST:PORT (default 127.0.0.1:8990)]`;

export class CreateError extends Error {
  override name = 'CreateError';
  readonly code = 'CREATE_FAILED';
}

/** The release tarballs in `dir`: @wasm-ccm/plugin-sdk's, wasm-ccm's and @wasm-ccm/devcloud's (absolute paths). */
export function findTarballs(dir: string): Tarballs {
  const files = existsSync(dir) ? readdirSync(dir) : [];
  const find = (pattern: RegExp): string | undefined => files.find((f) => pattern.test(f));
  const sdk = find(/^wasm-ccm-plugin-sdk-\d.*\.tgz$/);
  const ccm = find(/^wasm-ccm-\d.*\.tgz$/);
  const devcloud = find(/^wasm-ccm-devcloud-\d.*\.tgz$/);
  if (!sdk || !ccm || !devcloud) {
    throw new CreateError(
      `--packages: ${dir} lacks wasm-ccm-plugin-sdk-*.tgz, wasm-ccm-*.tgz or wasm-ccm-devcloud-*.tgz`,
    );
  }
  return { sdk: resolve(dir, sdk), ccm: resolve(dir, ccm), devcloud: resolve(dir, devcloud) };
}

/** The tarballs as the project's package.json names them: relative, so the project and release can move together. */
export function relativeTarballs(projectDir: string, tarballs: Tarballs): Tarballs {
  const rel = (path: string): string => relative(projectDir, path).split('\\').join('/');
  return { sdk: rel(tarballs.sdk), ccm: rel(tarballs.ccm), devcloud: rel(tarballs.devcloud) };
}

/** Writes the project into `dir` (which must not exist or be empty). */
export function createProject(dir: string, options: ProjectOptions): string[] {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new CreateError(`${dir} exists and is not empty`);
  const { name, capabilities, cloudHost } = options;
  const files: Record<string, string> = {
    'package.json': packageJson(options),
    'asconfig.json': asconfigJson(name),
    '.gitignore': GITIGNORE,
    'README.md': readmeSource(name, capabilities, cloudHost),
    'assembly/index.ts': indexSource(name, capabilities),
    'assembly/name.ts': nameSource(name),
    'test/provider.test.js': unitTestSource(name, capabilities),
    'conformance/fixture.yaml': fixtureYaml(name, cloudHost),
    'conformance/cloud.json': cloudJson(cloudHost),
    'conformance/credentials.json': credentialsJson(cloudHost),
    [DEVCLOUD_INSTANCES]: devcloudInstancesJson(),
  };
  for (const dirName of ['assembly', 'test', 'conformance']) mkdirSync(join(dir, dirName), { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  const modules = ['api', 'config', 'instances', ...capabilities.map((c) => TEMPLATE_CAPABILITIES[c]?.module ?? c)];
  for (const mod of new Set(modules)) copyFileSync(join(TEMPLATE, `${mod}.ts`), join(dir, 'assembly', `${mod}.ts`));
  return [...Object.keys(files), ...[...new Set(modules)].map((m) => `assembly/${m}.ts`)].sort();
}

export function createMain(argv: readonly string[], write: (line: string) => void): number {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        capabilities: { type: 'string' },
        name: { type: 'string' },
        packages: { type: 'string' },
        'cloud-host': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    write(USAGE);
    return 0;
  }
  const [target] = positionals;
  if (target === undefined || positionals.length > 1) {
    write(USAGE);
    return 2;
  }
  const dir = resolve(target);
  const name = values.name ?? basename(dir);
  try {
    if (!PROVIDER_NAME.test(name)) {
      throw new CreateError(`provider name "${name}" must be a DNS label (a-z, 0-9, -); pass --name=`);
    }
    const capabilities = parseCapabilities(values.capabilities ?? DEFAULT_CAPABILITIES.join(','));
    const tarballs = values.packages === undefined ? undefined : relativeTarballs(dir, findTarballs(values.packages));
    const cloudHost = values['cloud-host'] ?? '127.0.0.1:8990';
    const files = createProject(dir, { name, capabilities, versions: currentVersions(), tarballs, cloudHost });
    write(`wrote ${files.length} files of the ${name} provider (${capabilities.join(', ')}) in ${dir}`);
    write(`next: cd ${target} && npm install && npm test && npm run conformance   (README.md: what comes after)`);
    return 0;
  } catch (err) {
    if (err instanceof CreateError || err instanceof CapabilityError) {
      write(`create-wasm-ccm-provider: ${err.message}`);
      return 2;
    }
    throw err;
  }
}
