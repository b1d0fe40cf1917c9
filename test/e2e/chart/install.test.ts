// charts/wasm-ccm on the real apiserver: every object `helm template` renders for the default values and each
// example is accepted by a server-side dry run with strict field validation (minimal ServiceMonitor and
// PrometheusRule CRDs are installed for the kinds the apiserver does not serve itself); `helm install` and `helm uninstall` work, and
// refuse a bad value; then one rendering is applied for real in a
// namespace of its own, and wasm-ccm runs as the chart's ServiceAccount (a token from the TokenRequest API) with
// the chart's rendered arguments and plugin configuration (the module read through the API from the chart's
// ConfigMap, the credentials from the chart's Secret), takes the chart's Lease and initializes a kwok node.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { CCMProcess, hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../lab/ccm/index.ts';
import {
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  startKwok,
  adminKubeConfig,
  uniqueName,
} from '../../../lab/controlplane/index.ts';
import { freePort, type ManagedProcess, eventually } from '../../../lab/process/index.ts';
import {
  CHART_DIR,
  EXAMPLES_DIR,
  exampleFiles,
  helm,
  DEVCLOUD_MODULE,
  helmBinary,
  helmTemplate,
  materializeArgs,
  type RenderedObject,
  type RenderOptions,
  valueArgs,
} from '../../support/chart-model.ts';
import { Apiserver } from './support/apply.ts';

const CRD_PATHS = ['servicemonitor-crd.yaml', 'prometheusrule-crd.yaml'].map((f) =>
  join(import.meta.dirname, 'support', f),
);
/** Server-side apply answers 201 when it (would) create the object and 200 when it (would) change it. */
const APPLIED = [200, 201];

describe('charts/wasm-ccm on the real apiserver', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const apiserver = new Apiserver(info);
  const namespace = uniqueName('chart');
  const crds = CRD_PATHS.map((path) => ({
    text: readFileSync(path, 'utf8'),
    object: load(readFileSync(path, 'utf8')) as RenderedObject['object'],
  }));
  const installed: RenderedObject[] = [];
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    helmBinary();
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (const crd of crds) {
      const reply = await apiserver.apply(crd, false);
      expect(APPLIED, reply.message).toContain(reply.status);
    }
    await eventually('the ServiceMonitor and PrometheusRule CRDs to be served', async () => {
      const path = (plural: string): string => `/apis/monitoring.coreos.com/v1/namespaces/${namespace}/${plural}`;
      const lists = await Promise.all(
        ['servicemonitors', 'prometheusrules'].map((p) => apiserver.request('GET', path(p))),
      );
      return lists.every((list) => list.status === 200);
    });
  }, 20 * 60_000);

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    for (const doc of installed.filter((d) => !d.object.metadata?.namespace)) await apiserver.delete(doc.object);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    for (const crd of crds) await apiserver.delete(crd.object);
    await apiserver.close();
  });

  const renderings: { file: string; options: RenderOptions }[] = [
    { file: '(default values)', options: { setFiles: DEVCLOUD_MODULE } },
    {
      file: 'tls.existingSecret',
      options: { setFiles: DEVCLOUD_MODULE, setJson: { 'tls.existingSecret': 'ccm-tls' } },
    },
    ...exampleFiles().map((file) => ({
      file,
      options: { valuesFiles: [join(EXAMPLES_DIR, file)], setFiles: DEVCLOUD_MODULE },
    })),
  ];

  it.each(renderings)('a server-side dry run accepts every object of $file', async ({ options }) => {
    const result = await helmTemplate({ ...options, namespace });
    expect(result.code, result.stderr).toBe(0);
    for (const doc of result.objects) {
      const reply = await apiserver.apply(doc);
      expect(APPLIED, `${doc.source}: ${reply.message}`).toContain(reply.status);
    }
  });

  it('would refuse a misspelled field in a rendered object (the check above can fail)', async () => {
    const result = await helmTemplate({ setFiles: DEVCLOUD_MODULE, namespace });
    const workload = result.objects.find((d) => d.object.kind === 'DaemonSet') as RenderedObject;
    const text = workload.text.replace('readOnlyRootFilesystem: true', 'readOnlyRootFileSystem: true');
    expect(text).not.toBe(workload.text);
    const reply = await apiserver.apply({ ...workload, text });
    expect(reply.status, reply.message).toBeGreaterThanOrEqual(400);
    expect(reply.message).toContain('readOnlyRootFileSystem');
  });

  it('helm install installs the chart and uninstall removes it; bad values fail at install and upgrade, named', async () => {
    const release = uniqueName('helm');
    const common = ['-n', namespace, '--kubeconfig', info.kubeconfigPath];
    const bad = await helm([
      'install',
      release,
      CHART_DIR,
      ...common,
      ...valueArgs({ setFiles: DEVCLOUD_MODULE, setJson: { kind: 'Job' } }),
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("at '/kind'");
    // A file that is not a Wasm module: refused by the templates (not the schema), at install and at upgrade.
    const notWasm = join(info.dir, 'not-wasm.wasm');
    writeFileSync(notWasm, 'not a plugin\n');
    const notModule = 'plugin.module: the file given is not a WebAssembly module';
    const badModule = await helm(['install', release, CHART_DIR, ...common, '--set-file', `plugin.module=${notWasm}`]);
    expect(badModule.code).not.toBe(0);
    expect(badModule.stderr).toContain(notModule);
    const install = await helm(['install', release, CHART_DIR, ...common, ...valueArgs({ setFiles: DEVCLOUD_MODULE })]);
    expect(install.code, install.stderr).toBe(0);
    const workload = await apiserver.request(
      'GET',
      `/apis/apps/v1/namespaces/${namespace}/daemonsets/${release}-wasm-ccm`,
    );
    expect(workload.status, workload.message).toBe(200);
    // An upgrade that reuses the recorded values would hand the CCM a module JSON has mangled: refused, naming it.
    const reuse = await helm(['upgrade', release, CHART_DIR, ...common, '--reuse-values', '--set', 'verbosity=2']);
    expect(reuse.code).not.toBe(0);
    expect(reuse.stderr).toContain('plugin.module holds U+FFFD replacement characters');
    const upgrade = await helm(['upgrade', release, CHART_DIR, ...common, '--set-file', `plugin.module=${notWasm}`]);
    expect(upgrade.code).not.toBe(0);
    expect(upgrade.stderr).toContain(notModule);
    // Nothing changed: the release is still the first revision, deployed.
    const status = await helm(['status', release, ...common, '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ version: 1, info: { status: 'deployed' } });
    const uninstall = await helm(['uninstall', release, ...common]);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    const gone = await apiserver.request(
      'GET',
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${release}-wasm-ccm:cloud-controller-manager`,
    );
    expect(gone.status).toBe(404);
  });

  it('installs, and wasm-ccm run as the chart renders it takes the Lease and initializes a kwok node', async () => {
    const cloud: Devcloud = await startDevcloud();
    cleanup.push(() => cloud.stop());
    const host = `127.0.0.1:${cloud.port}`;
    // A release name of its own: its cluster-scoped objects (ClusterRoles, bindings) collide with no other test's.
    const result = await helmTemplate({
      namespace,
      releaseName: namespace,
      setFiles: DEVCLOUD_MODULE,
      setJson: {
        'plugins.providers': [
          {
            name: 'devcloud',
            source: { module: true },
            allowedHosts: [host],
            credentials: { entries: [{ name: 'devcloud', hosts: [host], bearerToken: cloud.token, insecure: true }] },
            cloudConfig: { url: cloud.url, region: 'dc-east-1' },
          },
        ],
      },
    });
    expect(result.code, result.stderr).toBe(0);
    for (const doc of result.objects) {
      const reply = await apiserver.apply(doc, false);
      expect(APPLIED, `${doc.source}: ${reply.message}`).toContain(reply.status);
      installed.push(doc);
    }

    const request = await core.createNamespacedServiceAccountToken({
      name: 'cloud-controller-manager',
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const token = request.status?.token as string;
    expect(token).toBeTruthy();
    const dir = mkdtempSync(join(info.dir, 'chart-ccm-'));
    const port = await freePort();
    const args = materializeArgs(result.objects, join(dir, 'pod')).map((a) => {
      if (a.startsWith('--secure-port=')) return `--secure-port=${port}`;
      if (a.startsWith('--bind-address=')) return '--bind-address=127.0.0.1';
      return a;
    });
    const ccm = new CCMProcess({ info, token, args, dir });
    cleanup.push(() => ccm.stop());
    await ccm.ready(60_000);
    // The module came through the API from the chart's ConfigMap, byte for byte.
    const loaded = await ccm.waitForLog(
      'the plugin loaded',
      (r) => r.msg === 'plugin loaded' && r.origin !== undefined,
    );
    expect(JSON.stringify(loaded)).toContain(`${namespace}/${namespace}-wasm-ccm-plugin`);
    expect(JSON.stringify(loaded)).toContain(
      createHash('sha256').update(readFileSync(DEVCLOUD_MODULE['plugin.module'])).digest('hex'),
    );

    const coordination = admin.makeApiClient(CoordinationV1Api);
    const lease = await coordination.readNamespacedLease({ name: 'cloud-controller-manager', namespace });
    expect(lease.spec?.holderIdentity).toBeTruthy();

    const kwok: ManagedProcess = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: dir });
    cleanup.push(() => kwok.stop());
    const name = uniqueName('chart-node');
    const instance = cloud.addInstance({ name });
    const body = kubeletNode(name, { annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } });
    await core.createNode({ body });
    cleanup.push(() => core.deleteNode({ name }));
    const node = await eventually(
      `node ${name} initialized`,
      async () => {
        const n: V1Node = await core.readNode({ name });
        return n.spec?.providerID && !hasTaint(n, UNINITIALIZED_TAINT.key) ? n : undefined;
      },
      60_000,
    );
    expect(node.spec?.providerID).toBe(`devcloud://${instance.id}`);
    expect(node.metadata?.labels?.['node.kubernetes.io/instance-type']).toBeTruthy();
    expect(ccm.logs().filter((r) => r.level === 'error')).toEqual([]);
  });
});
