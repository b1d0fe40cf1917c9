// The Dockerfile and .dockerignore, checked without a Docker engine: the Node 24 base is the Node the project builds
// and tests with, the image runs the compiled entry point as user 65532 without dev dependencies or npm, the build
// stage runs the project's own build scripts, and the build context carries exactly what those stages copy.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyArgs, dockerignore, envArgs, execForm, parseDockerfile, type Stage } from './dockerfile-model.ts';
import { IMAGE_ENV, IMAGE_NODE_ARGS, imageEnvProblem } from '../../../lab/ccm/index.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const dockerfile = parseDockerfile(read('Dockerfile'));
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
  engines: { node: string };
};
const runtime = dockerfile.stages.at(-1) as Stage;
const stage = (name: string) => dockerfile.stages.find((s) => s.name === name);
const runs = (s: Stage) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const keep = dockerignore(read('.dockerignore'));

/** Files under `dir` (relative to the repository), skipping installed packages and build outputs. */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (!['node_modules', 'build', 'dist'].includes(e.name)) out.push(...files(rel));
    } else {
      out.push(rel);
    }
  }
  return out;
}

describe('Dockerfile', () => {
  it('builds and runs on the official Node image at the Node version the project pins (the `node` devDependency)', () => {
    const pinned = pkg.devDependencies.node as string;
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(dockerfile.globalArgs.NODE_VERSION).toBe(pinned);
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const s of dockerfile.stages) expect(s.from, s.name).toBe(`node:${pinned}-bookworm-slim`);
    expect(pkg.engines.node).toBe('>=24');
  });

  it('runs the compiled entry point in exec form, which tsc emits for host/src/main.ts', () => {
    const entrypoints = runtime.instructions.filter((i) => i.keyword === 'ENTRYPOINT');
    expect(entrypoints).toHaveLength(1);
    const argv = execForm(entrypoints[0]?.args ?? '');
    expect(argv, 'the Node options benchmarks run with (lab/ccm/image.ts)').toEqual([
      'node',
      ...IMAGE_NODE_ARGS,
      'dist/host/src/main.js',
    ]);
    expect(runtime.instructions.filter((i) => i.keyword === 'CMD')).toEqual([]);
    // tsc: rootDir "." and outDir "dist" map host/src/main.ts to dist/host/src/main.js, with .ts imports
    // rewritten to .js.
    const tsconfig = JSON.parse(read('tsconfig.json')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({
      rootDir: '.',
      outDir: 'dist',
      rewriteRelativeImportExtensions: true,
    });
    expect(existsSync(join(ROOT, 'host/src/main.ts'))).toBe(true);
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.json');
    // The runtime stage has the compiled host, and package.json ("type": "module") beside dist/.
    const workdir = runtime.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args;
    expect(workdir).toBe('/app');
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => copyArgs(i.args));
    expect(copies).toContainEqual({ from: 'build', sources: ['/src/dist/host'], dest: './dist/host' });
    expect(copies.some((c) => c.sources.some((s) => s.endsWith('package.json')) && c.dest === './package.json')).toBe(
      true,
    );
  });

  it('copies into the build stage every folder that the sources tsc compiles there import from', () => {
    const copied = (stage('build') as Stage).instructions
      .filter((i) => i.keyword === 'COPY')
      .map((i) => copyArgs(i.args))
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    const inside = (path: string) => copied.some((c) => path === c || path.startsWith(`${c}/`));
    const tsconfig = JSON.parse(read('tsconfig.json')) as { include: string[] };
    const compiled = tsconfig.include
      .filter((dir) => existsSync(join(ROOT, dir)) && statSync(join(ROOT, dir)).isDirectory() && inside(dir))
      .flatMap((dir) => files(dir))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !/^packages\/[^/]+\/template\//.test(f));
    expect(compiled.length).toBeGreaterThan(0);
    const outside: string[] = [];
    for (const file of compiled) {
      for (const m of read(file).matchAll(/\bfrom '(\.{1,2}\/[^']+)'/g)) {
        const target = relative(ROOT, join(ROOT, dirname(file), m[1] as string));
        if (!inside(target)) outside.push(`${file} imports ${m[1]}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('sets the environment benchmarks run with (IMAGE_ENV), and installs the allocator it preloads', () => {
    const env = Object.assign(
      {},
      ...runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => envArgs(i.args)),
    ) as Record<string, string>;
    expect(env, 'the environment benchmarks run with (lab/ccm/image.ts)').toEqual(IMAGE_ENV);
    // A bare name, so the loader finds it in whichever architecture's directory, from the package the image installs.
    expect(env.LD_PRELOAD).toBe('libjemalloc.so.2');
    const install = runs(runtime).find((r) => /apt-get install/.test(r)) ?? '';
    expect(install).toMatch(/apt-get install -y --no-install-recommends [^&]*\blibjemalloc2\b/);
    expect(install).toMatch(/apt-get update/);
    expect(install).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
  });

  it('says why a library the image preloads cannot be preloaded here, so benchmarks refuse instead of measuring glibc', () => {
    const problem = imageEnvProblem('libwasm-ccm-no-such-allocator.so.1');
    expect(problem).toMatch(/^this machine cannot preload libwasm-ccm-no-such-allocator\.so\.1 as the image does/);
    expect(problem).toContain('apt-get install libjemalloc2');
  });

  it('reads ENV in both forms', () => {
    expect(envArgs('A=1 B="two words" C=')).toEqual({ A: '1', B: 'two words', C: '' });
    expect(envArgs('NAME some value')).toEqual({ NAME: 'some value' });
  });

  it('runs as the non-root user 65532', () => {
    const users = runtime.instructions.filter((i) => i.keyword === 'USER');
    expect(users.at(-1)?.args).toMatch(/^65532(:65532)?$/);
    const entry = runtime.instructions.findIndex((i) => i.keyword === 'ENTRYPOINT');
    const user = runtime.instructions.findIndex((i) => i.keyword === 'USER');
    expect(user).toBeGreaterThanOrEqual(0);
    expect(user).toBeLessThan(entry);
  });

  it('builds with the project’s own scripts: npm ci, npm run build, npm run build:plugins', () => {
    const build = stage('build');
    expect(build).toBeDefined();
    const commands = runs(build as Stage).join(' && ');
    expect(commands).toMatch(/npm ci\b/);
    expect(commands).toContain('npm run build ');
    expect(commands).toContain('npm run build:plugins');
    expect(pkg.scripts['build:plugins']).toBeDefined();
  });

  it('ships no dev dependencies: node_modules come from `npm ci --omit=dev`, never from the build stage', () => {
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => copyArgs(i.args));
    const modules = copies.filter((c) => c.sources.some((s) => s.includes('node_modules')));
    expect(modules).toHaveLength(1);
    const from = stage(modules[0]?.from ?? '');
    expect(from, 'node_modules come from a stage').toBeDefined();
    expect(from?.name).not.toBe('build');
    const installs = runs(from as Stage).filter((r) => /npm (ci|install)\b/.test(r));
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatch(/npm ci\b.*--omit=dev/);
    // Nothing else from the build stage may carry packages in: only the compiled host and the plugins.
    for (const c of copies.filter((c) => c.from === 'build')) {
      for (const s of c.sources) expect(s, `COPY --from=build ${s}`).toMatch(/^\/src\/(dist\/host|plugins\/)/);
    }
    expect(runs(runtime).some((r) => /npm (ci|install)/.test(r))).toBe(false);
  });

  it('needs no install scripts for the runtime dependencies (why the deps stage may --ignore-scripts)', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.dev && p.hasInstallScript)
      .map(([path]) => path);
    expect(scripted).toEqual([]);
  });

  it('removes npm, npx, corepack and yarn from the runtime image', () => {
    const removal = runs(runtime).find((r) => r.startsWith('rm -rf'));
    for (const path of [
      '/usr/local/lib/node_modules',
      '/usr/local/bin/npm',
      '/usr/local/bin/npx',
      '/usr/local/bin/corepack',
      '/usr/local/bin/yarn',
    ]) {
      expect(removal, path).toContain(path);
    }
  });

  it('has no HEALTHCHECK (Kubernetes probes /livez and /readyz) and no remote ADD', () => {
    const all = dockerfile.stages.flatMap((s) => s.instructions);
    expect(all.filter((i) => i.keyword === 'HEALTHCHECK')).toEqual([]);
    expect(all.filter((i) => i.keyword === 'ADD')).toEqual([]);
  });
});

describe('.dockerignore', () => {
  it('follows Docker’s rules: the last matching pattern wins, a directory pattern covers what is inside', () => {
    const m = dockerignore('*\n!src/\n**/*.test.ts\n**/node_modules\n!src/keep.test.ts\n');
    expect(m('README.md')).toBe(false);
    expect(m('src/a.ts')).toBe(true);
    expect(m('src/deep/a.ts')).toBe(true);
    expect(m('src/deep/a.test.ts')).toBe(false);
    expect(m('src/keep.test.ts')).toBe(true);
    expect(m('src/node_modules/x/index.js')).toBe(false);
    expect(m('srcx/a.ts')).toBe(false);
  });

  it('sends every file the build stage copies from the context', () => {
    const sources = dockerfile.stages.flatMap((s) =>
      s.instructions
        .filter((i) => i.keyword === 'COPY')
        .map((i) => copyArgs(i.args))
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      const paths = statSync(join(ROOT, source)).isDirectory()
        ? files(source).filter((f) => !f.endsWith('.test.ts'))
        : [source];
      expect(paths.length, source).toBeGreaterThan(0);
      for (const p of paths) expect(keep(p), p).toBe(true);
    }
  });

  it('keeps out tests, installed packages, build outputs, git, manifests with credentials, and local state', () => {
    for (const path of [
      '.git/config',
      'node_modules/vitest/package.json',
      'dist/host/src/main.js',
      'plugins/devcloud/build/devcloud.wasm',
      'host/src/options/ccm-options.test.ts',
      'test/unit/manifests/manifests.test.ts',
      'manifests/credentials.yaml',
      'manifests/plugins/devcloud.wasm',
      'bench/results/node-init.json',
      'devcloud.json',
      '.env',
    ]) {
      expect(keep(path), path).toBe(false);
    }
  });
});
