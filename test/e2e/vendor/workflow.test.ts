// The vendor workflow end to end, from outside the repository: `npm run pack` makes the release tarballs; in a fresh
// directory under the OS temp dir a provider is scaffolded from the template's tarball and installed from the
// tarballs only (third-party packages from the registry, through the machine's npm cache), built, unit-tested with
// its own tests, run through `wasm-ccm plugin test` from the installed package against devcloud, then shipped in a
// ConfigMap of the real control plane and served by the installed wasm-ccm until a Node is initialized. Every module
// resolution of every Node process the vendor runs is recorded, and none may land in the repository's tree.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
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
import { eventually } from '../../../lab/process/index.ts';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import { REPO_ROOT, resolutionsInsideRepository, run, type VendorShell, vendorShell } from './support/commands.ts';
import { packedFiles, packRelease, type Release } from './support/release.ts';

const NAME = 'acme-cloud';

describe('a vendor builds, tests and ships a provider from a project of their own', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const nodeName = uniqueName('vendor-node');
  const configMap = uniqueName('acme-plugin');
  let home: string;
  let project: string;
  let shell: VendorShell;
  let release: Release;
  let cloud: Devcloud;
  let ccm: CCMProcess | undefined;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'wasm-ccm-vendor-'));
    project = join(home, NAME);
    shell = vendorShell(home);
    cloud = await startDevcloud({ token: 'vendor-api-token' });
    // A release is downloaded, not read from the repository: the tarballs are copied out first.
    release = packRelease(join(home, 'release'));
  });

  afterAll(async () => {
    const code = await ccm?.stop();
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
    expect(packedFiles(release.create)).toEqual(
      expect.arrayContaining(['dist/create.js', 'template/assembly/loadbalancer.ts', 'versions.json']),
    );
  });

  it('scaffolds a provider from the template tarball and installs it from the tarballs', async () => {
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
      `--cloud-host=127.0.0.1:${cloud.port}`,
    ]);
    expect(created.output).toContain(`wrote 16 files of the ${NAME} provider`);
    expect(created.code).toBe(0);
    // The API token goes where the README says: the credentials file the host reads.
    const credentials = join(project, 'conformance', 'credentials.json');
    writeFileSync(credentials, readFileSync(credentials, 'utf8').replace('replace-with-your-api-token', cloud.token));
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

  it('passes wasm-ccm plugin test, run from the installed package, against devcloud', async () => {
    const help = await run(shell, project, 'npx', ['wasm-ccm', '--help']);
    expect(help.output).toContain('Usage: wasm-ccm [flags]');
    expect(help.code).toBe(0);
    cloud.addInstance({ id: 'conformance-a', name: 'node-a' });
    cloud.addInstance({ name: 'node-b' });
    cloud.stopInstance(cloud.addInstance({ name: 'node-c' }).id);
    const kit = await run(shell, project, 'npm', ['run', 'conformance']);
    expect(kit.output).toMatch(/\d+ checks: \d+ passed, 0 failed, \d+ skipped in [\d.]+ s — PASSED/);
    // The template's fixture probes devcloud for the backends: node-a and node-b, then node-a alone.
    expect(kit.output).toMatch(/^pass +loadBalancer: backends after ensure: exactly the nodes sent +2 backends$/m);
    expect(kit.output).toMatch(/^pass +loadBalancer: backends after update: exactly the nodes sent +1 backend$/m);
    expect(kit.output).toMatch(/^pass +plugin: every credential reaches an allowed host /m);
    expect(kit.code).toBe(0);
  });

  it('is served from a ConfigMap by the installed wasm-ccm until a Node is initialized', async () => {
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
            allowedHosts: [`127.0.0.1:${cloud.port}`],
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
