// The vendor workflow end to end, from outside the repository: `npm run pack` makes the release tarballs; in a fresh
// directory under the OS temp dir a provider is scaffolded from the template's tarball and installed from the
// tarballs only (third-party packages from the registry, through the machine's npm cache), built, unit-tested with
// its own tests, and passes `npm run conformance` on the first run (the kit against the devcloud the project's
// script starts). `npm run dev` (wasm-ccm dev --watch) brings up a local cluster whose Nodes the new provider
// initializes, swaps a rebuilt module in, and Ctrl-C leaves no process or folder behind. The module is then shipped
// in a ConfigMap of the shared control plane and served by the installed wasm-ccm until a Node is initialized. Every
// bin of the tarballs refuses an older Node.js, naming the version it needs; a CCM started with `npx wasm-ccm` stops
// and releases its Lease when npx is sent SIGTERM; every relative link of the packages' markdown resolves inside its
// package. Every module resolution of every Node process the vendor runs is recorded, and none may land in the
// repository's tree.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import {
  CCMProcess,
  PLUGIN_NAMESPACE,
  putPluginConfigMap,
  hasTaint,
  kubeletNode,
  UNINITIALIZED_TAINT,
} from '../../../lab/ccm/index.ts';
import { eventually, freePort } from '../../../lab/process/index.ts';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  kubeconfigJSON,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import { descendants, nodeVersion, running, unpackBins } from './support/bins.ts';
import { markdownLinks, unresolvedLinks } from './support/links.ts';
import { Session } from './support/session.ts';
import { REPO_ROOT, resolutionsInsideRepository, run, type VendorShell, vendorShell } from './support/commands.ts';
import { packedFiles, packRelease, type Release } from './support/release.ts';

const NAME = 'acme-cloud';
/** An older Node.js than any package supports: the machine's own (Node 20 here), or WASM_CCM_OLD_NODE. */
const OLD_NODE = process.env.WASM_CCM_OLD_NODE ?? '/usr/bin/node';

describe('a vendor builds, tests and ships a provider from a project of their own', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const coordination = admin.makeApiClient(CoordinationV1Api);
  const nodeName = uniqueName('vendor-node');
  const configMap = uniqueName('acme-plugin');
  let home: string;
  let project: string;
  let shell: VendorShell;
  let release: Release;
  let cloud: Devcloud | undefined;
  let cloudPort: number;
  let ccm: CCMProcess | undefined;
  let dev: Session | undefined;
  /** When the vendor's journey began (create) and ended (Ctrl-C of `npm run dev` done). */
  const journey = { start: 0, end: 0 };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'wasm-ccm-vendor-'));
    project = join(home, NAME);
    shell = vendorShell(home);
    // The project's scripts start devcloud here; the test's own (the ConfigMap test) takes the port afterwards.
    cloudPort = await freePort();
    // A release is downloaded, not read from the repository: the tarballs are copied out first.
    release = packRelease(join(home, 'release'));
  }, 600_000); // three tsc builds and npm pack: minutes on a busy machine

  afterAll(async () => {
    const code = await ccm?.stop();
    await dev?.stop();
    await core.deleteNode({ name: nodeName }).catch(() => undefined);
    await core.deleteNamespacedConfigMap({ name: configMap, namespace: PLUGIN_NAMESPACE }).catch(() => undefined);
    await cloud?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
    if (ccm) expect(code).toBe(0);
  });

  it('packs the SDK, the CCM and the template, each with what a vendor runs and no TypeScript to strip', () => {
    const sdk = packedFiles(release.sdk);
    expect(sdk).toEqual(expect.arrayContaining(['asconfig.json', 'index.ts', 'exports.ts', 'abi/v1.json']));
    expect(sdk).toEqual(expect.arrayContaining(['tools/compile.js', 'tools/compile.d.ts', 'tools/check-imports.js']));
    expect(sdk.filter((f) => f.startsWith('tools/') && /(?<!\.d)\.ts$/.test(f))).toEqual([]);
    const ccmFiles = packedFiles(release.ccm);
    expect(ccmFiles).toEqual(expect.arrayContaining(['dist/host/src/main.js', 'package.json']));
    expect(ccmFiles.filter((f) => /(?<!\.d)\.ts$/.test(f))).toEqual([]);
    // wasm-ccm dev's lab parts come without the rest of the lab (devcloud is a package of its own).
    expect(ccmFiles).toEqual(
      expect.arrayContaining(['dist/lab/controlplane/index.js', 'scripts/build-controlplane.sh']),
    );
    expect(ccmFiles.filter((f) => /^dist\/(devcloud|lab\/ccm)\//.test(f))).toEqual([]);
    expect(packedFiles(release.devcloud)).toEqual(expect.arrayContaining(['dist/index.js', 'README.md']));
    expect(packedFiles(release.create)).toEqual(
      expect.arrayContaining(['dist/create.js', 'template/assembly/loadbalancer.ts', 'versions.json', 'README.md']),
    );
  });

  it('scaffolds a provider from the template tarball and installs it from the tarballs', async () => {
    journey.start = Date.now();
    const created = await run(shell, home, 'npm', [
      'exec',
      '--yes',
      '--prefer-offline',
      `--package=${release.create}`,
      '--',
      'create-wasm-ccm-provider',
      NAME,
      '--capabilities=instancesV2,loadBalancer,routes,zones',
      `--packages=${release.dir}`,
      `--cloud-host=127.0.0.1:${cloudPort}`,
    ]);
    expect(created.output).toContain(`wrote 17 files of the ${NAME} provider`);
    expect(created.code).toBe(0);
    // The release folder is named relative to the project: both can move together.
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies['wasm-ccm']).toMatch(/^file:\.\.\/release\/wasm-ccm-\d[^/]*\.tgz$/);
    expect(manifest.devDependencies['@wasm-ccm/devcloud']).toMatch(/^file:\.\.\/release\/wasm-ccm-devcloud-/);
    const installed = await run(shell, project, 'npm', ['install', '--prefer-offline']);
    expect(installed.output).not.toMatch(/ERR!/);
    expect(installed.code).toBe(0);
  });

  it("builds with no compiler notes, and passes the project's own unit tests", async () => {
    const tested = await run(shell, project, 'npm', ['test']);
    expect(tested.output).toContain(`build/${NAME}.wasm: 9 imports, all provided by the wasm-ccm host`);
    expect(tested.output).not.toMatch(/\b(INFO|WARNING) AS\d+/);
    expect(tested.output).toMatch(/# pass 7\b|ℹ pass 7\b/);
    expect(tested.code).toBe(0);
  });

  it('passes the conformance kit on the first run, against the devcloud its script starts', async () => {
    const help = await run(shell, project, 'npx', ['wasm-ccm', '--help']);
    expect(help.output).toContain('Usage: wasm-ccm [flags]');
    expect(help.code).toBe(0);
    const kit = await run(shell, project, 'npm', ['run', 'conformance']);
    expect(kit.output).toContain(`devcloud listening on http://127.0.0.1:${cloudPort}`);
    expect(kit.output).toMatch(/\d+ checks: \d+ passed, 0 failed, \d+ skipped in [\d.]+ s — PASSED/);
    // The template's fixture probes devcloud for the backends: node-a and node-b, then node-a alone.
    expect(kit.output).toMatch(/^pass +loadBalancer: backends after ensure: exactly the nodes sent +2 backends$/m);
    expect(kit.output).toMatch(/^pass +loadBalancer: backends after update: exactly the nodes sent +1 backend$/m);
    // ... and lists its load balancers: one after ensure, still one after the second, none after delete.
    expect(kit.output).toMatch(
      /^pass +loadBalancer: cloud: a repeated ensure adds none +1 load balancer, as after the first$/m,
    );
    expect(kit.output).toMatch(/^pass +loadBalancer: cloud: none left after delete +0 load balancers, as before/m);
    expect(kit.output).toMatch(/^pass +plugin: every credential reaches an allowed host /m);
    expect(kit.code).toBe(0);
  });

  it('runs in `npm run dev`: Nodes initialized by the provider, a rebuilt module swapped in, Ctrl-C removes all', async () => {
    dev = new Session(shell, project, 'npm', ['run', 'dev']);
    // A cold machine builds kube-apiserver, etcd and kwok first: the test's global setup has them cached already.
    await dev.waitFor(/Ctrl-C stops everything/, 180_000);
    const kubeconfig = (await dev.waitFor(/kubeconfig: (\S+)/, 1000))[1] ?? '';
    const ccmLog = (await dev.waitFor(/tail -f (\S+)/, 1000))[1] ?? '';
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const nodes = (await kc.makeApiClient(CoreV1Api).listNode()).items;
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual(['node-a', 'node-b']);
    for (const node of nodes) {
      expect(node.spec?.providerID).toMatch(new RegExp(`^${NAME}://`));
      expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain(UNINITIALIZED_TAINT.key);
      expect(node.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('dc-east-1a');
    }
    expect(nodes.find((n) => n.metadata?.name === 'node-a')?.spec?.providerID).toBe(`${NAME}://conformance-a`);
    // The vendor edits and rebuilds in another terminal: --watch ships the module, wasm-ccm swaps it in.
    const index = join(project, 'assembly', 'index.ts');
    writeFileSync(
      index,
      readFileSync(index, 'utf8').replace('super(PROVIDER_NAME, "0.1.0"', 'super(PROVIDER_NAME, "0.2.0"'),
    );
    const rebuilt = await run(shell, project, 'npm', ['run', 'build']);
    expect(rebuilt.code).toBe(0);
    await dev.waitFor(/wasm-ccm swapped it in: 0\.1\.0 -> 0\.2\.0/, 90_000);
    const group = [dev.pid, ...descendants(dev.pid)];
    expect(group.length).toBeGreaterThan(6); // npm, its shell, devcloud, wasm-ccm dev, etcd, kube-apiserver, kwok, the CCM
    dev.interrupt();
    await dev.closed;
    journey.end = Date.now();
    expect(dev.output).toContain('stopped; every process and temporary folder of this session is gone');
    await eventually('every process of npm run dev gone', async () => group.every((p) => !running(p)) || undefined);
    expect(existsSync(dirname(kubeconfig))).toBe(false);
    expect(existsSync(dirname(ccmLog))).toBe(false);
    const minutes = (journey.end - journey.start) / 60_000;
    console.log(
      `vendor journey (create, install, unit tests, kit, npm run dev, swap, Ctrl-C): ${minutes.toFixed(1)} min`,
    );
  });

  it('is served from a ConfigMap by the installed wasm-ccm until a Node is initialized', async () => {
    // After a failed dev test its session may still hold the port.
    await dev?.stop();
    // The cloud the project's conformance files name, as `npm run dev` left it: devcloud on that port, its token.
    cloud = await startDevcloud({ port: cloudPort, token: 'devcloud-token' });
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    const wasm = new Uint8Array(readFileSync(join(project, 'build', `${NAME}.wasm`)));
    await putPluginConfigMap(core, configMap, `${NAME}.wasm`, wasm);
    const config = join(home, 'plugins.json');
    copyFileSync(join(project, 'conformance', 'cloud.json'), join(home, 'cloud.json'));
    writeFileSync(
      config,
      JSON.stringify({
        providers: [
          {
            name: NAME,
            source: { configMap: { namespace: PLUGIN_NAMESPACE, name: configMap, key: `${NAME}.wasm` } },
            allowedHosts: [`127.0.0.1:${cloudPort}`],
            credentials: { file: join(project, 'conformance', 'credentials.json') },
            cloudConfigFile: join(home, 'cloud.json'),
          },
        ],
      }),
    );
    const instance = cloud.addInstance({ name: nodeName, zone: 'dc-east-1b' });
    ccm = new CCMProcess({
      info,
      token,
      dir: home,
      main: join(project, 'node_modules', 'wasm-ccm', 'dist', 'host', 'src', 'main.js'),
      args: [`--cloud-provider=${NAME}`, `--plugin-config=${config}`, '--controllers=cloud-node'],
      env: shell.env,
    });
    await ccm.ready(60_000);
    await core.createNode({ body: kubeletNode(nodeName, { ready: true }) });
    const node: V1Node = await eventually(
      `${nodeName} initialized by the installed wasm-ccm`,
      async () => {
        const n = await core.readNode({ name: nodeName });
        return hasTaint(n, UNINITIALIZED_TAINT.key) ? undefined : n;
      },
      30_000,
    );
    expect(node.spec?.providerID).toBe(`${NAME}://${instance.id}`);
    expect(node.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('dc-east-1b');
  });

  it('refuses an older Node.js in every bin of every tarball, naming the version it needs (exit 1)', async () => {
    const version = nodeVersion(OLD_NODE);
    const [major = 0, minor = 0] = version.split('.').map(Number);
    // The check needs a Node.js older than every package's engines (>=22.18): say so rather than pass vacuously.
    expect(major * 100 + minor, `${OLD_NODE} is Node.js ${version}; set WASM_CCM_OLD_NODE`).toBeLessThan(2218);
    const bins = [release.sdk, release.ccm, release.devcloud, release.create].flatMap((tarball, i) =>
      unpackBins(tarball, join(home, 'unpacked', String(i))),
    );
    expect(bins.map((b) => b.command).sort()).toEqual([
      'create-wasm-ccm-provider',
      'devcloud',
      'wasm-ccm',
      'wasm-ccm-check-imports',
    ]);
    // No --import hook: the shell's hook needs a newer Node.js than the one under test.
    const { NODE_OPTIONS: _hook, ...env } = shell.env;
    for (const bin of bins) {
      const got = await run({ ...shell, env }, home, OLD_NODE, [bin.path, '--help']);
      expect(got.output).toBe(
        `${bin.command}: needs Node.js ${bin.engines}; this is Node.js ${version} (${OLD_NODE})\n`,
      );
      expect(got.code).toBe(1);
    }
  });

  it('stops the CCM that `npx wasm-ccm` started on SIGTERM to npx: the Lease is released, no process is left', async () => {
    // The manifests' RBAC grants the one Lease: the CCM of the ConfigMap test hands it back first (exit 0).
    const lease = 'cloud-controller-manager';
    expect(await ccm?.stop()).toBe(0);
    ccm = undefined;
    const { token } = await ccmIdentity(info, admin);
    const kubeconfig = join(home, 'npx.kubeconfig');
    const log = openSync(join(home, 'npx-ccm.log'), 'w');
    writeFileSync(kubeconfig, kubeconfigJSON(info.server, info.caPem, 'ccm', token));
    const npx = spawn(
      'npx',
      [
        'wasm-ccm',
        `--kubeconfig=${kubeconfig}`,
        `--cloud-provider=${NAME}`,
        `--plugin-config=${join(home, 'plugins.json')}`,
        '--controllers=cloud-node',
        '--secure-port=0',
      ],
      { cwd: project, env: shell.env, stdio: ['ignore', log, log] },
    );
    const npxExited = new Promise<unknown>((resolve) => npx.once('exit', resolve));
    const holder = await eventually(
      `the npx-started CCM holds the Lease ${lease}`,
      async () => {
        const l = await coordination.readNamespacedLease({ namespace: 'kube-system', name: lease }).catch(() => null);
        return l?.spec?.holderIdentity || undefined;
      },
      60_000,
    );
    const tree = descendants(npx.pid!);
    expect(tree.length).toBeGreaterThan(0); // npm's shell and the CCM
    npx.kill('SIGTERM');
    await npxExited;
    const released = await eventually(
      `the Lease ${lease} released`,
      async () => {
        const l = await coordination.readNamespacedLease({ namespace: 'kube-system', name: lease });
        return l.spec?.holderIdentity ? undefined : l;
      },
      15_000,
    );
    expect(released.spec?.holderIdentity ?? '').toBe('');
    await eventually('every process npx started gone', async () => tree.every((p) => !running(p)) || undefined, 15_000);
    expect(holder).toMatch(/.+/);
    expect(readFileSync(join(home, 'npx-ccm.log'), 'utf8')).toContain('released leader lease');
  });

  it('links, in the markdown of every package, only to files inside that package (or to absolute URLs)', () => {
    const tarballs = [release.sdk, release.ccm, release.devcloud, release.create];
    const roots = tarballs.map((tarball, i) => {
      unpackBins(tarball, join(home, 'links', String(i)));
      return join(home, 'links', String(i), 'package');
    });
    // A positive sign the check reads links: the SDK's README has relative ones (ABI.md, abi/v1.json).
    const sdkLinks = markdownLinks(readFileSync(join(roots[0] ?? '', 'README.md'), 'utf8'));
    expect(sdkLinks).toEqual(expect.arrayContaining(['ABI.md', 'abi/v1.json']));
    expect(roots.flatMap((r) => unresolvedLinks(r))).toEqual([]);
  });

  it('never resolved a module inside the repository', () => {
    const urls = shell.resolutions();
    // A positive sign that the hook saw the work: the installed CCM, SDK tools, compiler and kit were resolved.
    const installed = `${join(project, 'node_modules')}/`;
    const parts = [
      'wasm-ccm/dist/host/src/main.js',
      'wasm-ccm/dist/host/src/cli/plugin-test.js',
      'wasm-ccm/dist/host/src/plugin/sandbox/worker/worker-entry.js', // a plugin worker thread's entry
    ];
    for (const part of parts) {
      expect(urls.some((u) => u.startsWith('file:') && u.includes(`${installed}${part}`))).toBe(true);
    }
    expect(urls.some((u) => u.includes('@wasm-ccm/plugin-sdk/tools/check-imports.js'))).toBe(true);
    expect(resolutionsInsideRepository(urls)).toEqual([]);
    expect(REPO_ROOT).not.toBe('');
  });
});
