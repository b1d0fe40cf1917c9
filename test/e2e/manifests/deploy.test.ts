// manifests/ against the real apiserver: every document is accepted by a server-side dry run with strict field
// validation (its own YAML text is sent, so a misspelled field is refused rather than dropped on the way), the
// plugin ConfigMap the kustomization generates from the real devcloud plugin fits, the Deployment's pods meet the
// `restricted` Pod Security Standard (and the DaemonSet's host network does not), and the Deployment's own arguments
// start wasm-ccm, whose health endpoints answer the probes as the kubelet sends them.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { CoreV1Api, type V1Probe } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDevcloud } from '../../../devcloud/src/index.ts';
import { CCMProcess } from '../../../lab/ccm/index.ts';
import {
  type ControlPlaneInfo,
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import { freePort } from '../../../lab/process/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import {
  daemonSet,
  deployment,
  flag,
  flagPairs,
  KUSTOMIZE_KINDS,
  kustomization,
  mountedFile,
  rawDocuments,
  sourceContent,
  type Workload,
  yamlFiles,
} from '../../support/manifest-model.ts';

interface Reply {
  status: number;
  body: string;
}

/** The apiserver's message of a failure, or the start of a body: enough to say why, never a whole ConfigMap. */
function why(reply: Reply): string {
  try {
    const status = JSON.parse(reply.body) as { kind?: string; message?: string };
    if (status.kind === 'Status') return `${reply.status}: ${status.message}`;
  } catch {
    // not JSON
  }
  return `${reply.status}: ${reply.body.slice(0, 300)}`;
}

/** Server-side apply answers 201 when it (would) create the object and 200 when it (would) change it. */
const APPLIED = [200, 201];

/** One request to the apiserver as the admin, with the body sent exactly as given. */
function api(
  info: ControlPlaneInfo,
  method: string,
  path: string,
  body?: string,
  contentType?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, info.server),
      {
        method,
        ca: info.caPem,
        headers: {
          authorization: `Bearer ${info.adminToken}`,
          accept: 'application/json',
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        timeout: 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A health probe as the kubelet sends it: HTTPS, certificate not verified, no credentials. */
function probe(port: number, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, timeout: 5_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const resourceNames = new Map<string, Map<string, { name: string; namespaced: boolean }>>();

/** The REST path of an object, from the apiserver's discovery of its group/version. */
async function objectPath(info: ControlPlaneInfo, apiVersion: string, kind: string, name: string, ns?: string) {
  let byKind = resourceNames.get(apiVersion);
  if (!byKind) {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const reply = await api(info, 'GET', base);
    expect(reply.status, `discovery of ${apiVersion}`).toBe(200);
    const list = JSON.parse(reply.body) as { resources: { name: string; kind: string; namespaced: boolean }[] };
    byKind = new Map(list.resources.filter((r) => !r.name.includes('/')).map((r) => [r.kind, r]));
    resourceNames.set(apiVersion, byKind);
  }
  const resource = byKind.get(kind);
  if (!resource) throw new Error(`the apiserver serves no ${kind} in ${apiVersion}`);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const scope = resource.namespaced ? `/namespaces/${ns ?? 'default'}` : '';
  return `${base}${scope}/${resource.name}/${name}`;
}

const APPLY = 'fieldManager=wasm-ccm-manifests&force=true&fieldValidation=Strict';

/** Server-side apply of a document's own text (YAML or JSON), as a dry run unless `dryRun` is false. */
async function applyText(
  info: ControlPlaneInfo,
  text: string,
  meta: { apiVersion: string; kind: string; name: string; namespace?: string },
): Promise<Reply> {
  const path = await objectPath(info, meta.apiVersion, meta.kind, meta.name, meta.namespace);
  return api(info, 'PATCH', `${path}?dryRun=All&${APPLY}`, text, 'application/apply-patch+yaml');
}

const DOCUMENTS = yamlFiles()
  .flatMap((file) => rawDocuments(file).map((d) => ({ file, ...d })))
  .filter((d) => !KUSTOMIZE_KINDS.has(d.object.kind ?? ''))
  .map((d) => ({ ...d, label: `${d.file}: ${d.object.kind} ${d.object.metadata?.name}` }));

describe('manifests/ on the real apiserver', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);

  it('has the documents this test expects to check', () => {
    const files = new Set(DOCUMENTS.map((d) => d.file));
    for (const f of ['rbac.yaml', 'deployment.yaml', 'daemonset/daemonset.yaml', 'pdb.yaml', 'credentials.yaml']) {
      expect(files, f).toContain(f);
    }
    expect(DOCUMENTS.map((d) => d.object.kind)).toEqual(
      expect.arrayContaining(['Deployment', 'DaemonSet', 'PodDisruptionBudget', 'Secret', 'ConfigMap', 'ClusterRole']),
    );
  });

  it.each(DOCUMENTS)('a server-side dry run accepts $label', async (doc) => {
    const { apiVersion, kind, metadata } = doc.object;
    const reply = await applyText(info, doc.text, {
      apiVersion: apiVersion as string,
      kind: kind as string,
      name: metadata?.name as string,
      namespace: metadata?.namespace,
    });
    expect(APPLIED, why(reply)).toContain(reply.status);
    const applied = JSON.parse(reply.body) as { kind: string; metadata: { name: string; namespace?: string } };
    expect(applied.kind).toBe(kind);
    expect(applied.metadata.name).toBe(metadata?.name);
    expect(applied.metadata.namespace).toBe(metadata?.namespace);
  });

  it('refuses a misspelled field (strict validation of the text as written: the check above can fail)', async () => {
    const doc = DOCUMENTS.find((d) => d.object.kind === 'Deployment');
    expect(doc).toBeDefined();
    const text = (doc?.text ?? '').replace('readOnlyRootFilesystem: true', 'readOnlyRootFileSystem: true');
    expect(text).toContain('readOnlyRootFileSystem');
    const reply = await applyText(info, text, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: doc?.object.metadata?.name as string,
      namespace: 'kube-system',
    });
    expect(reply.status, why(reply)).toBeGreaterThanOrEqual(400);
    expect(why(reply)).toContain('readOnlyRootFileSystem');
  });

  describe('the plugin ConfigMap kustomize generates from the built devcloud plugin', () => {
    const generator = (kustomization().configMapGenerator ?? [])[0];
    const wasm = readFileSync(builtPlugin('devcloud'));

    function generated(binary: Buffer): string {
      return JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: generator?.name, namespace: generator?.namespace, labels: generator?.options?.labels },
        binaryData: { [String(generator?.files?.[0]?.split('/').pop())]: binary.toString('base64') },
      });
    }

    it('is accepted (the module fits the 1 MiB a ConfigMap holds)', async () => {
      expect(generator?.name).toBe('wasm-ccm-plugin');
      expect(wasm.byteLength).toBeLessThan(1024 * 1024);
      const reply = await applyText(info, generated(wasm), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: generator?.name as string,
        namespace: generator?.namespace,
      });
      expect(APPLIED, why(reply)).toContain(reply.status);
    });

    it('would be refused for a module over 1 MiB (why manifests/README.md sets that bound)', async () => {
      const reply = await applyText(info, generated(Buffer.alloc(1024 * 1024 + 1)), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: generator?.name as string,
        namespace: generator?.namespace,
      });
      expect(reply.status, why(reply)).toBe(422);
      expect(why(reply)).toMatch(/1048576/);
    });
  });

  describe('Pod Security admission, in a namespace that enforces `restricted`', () => {
    const namespace = uniqueName('pss-restricted');

    beforeAll(async () => {
      await core.createNamespace({
        body: {
          metadata: {
            name: namespace,
            labels: {
              'pod-security.kubernetes.io/enforce': 'restricted',
              'pod-security.kubernetes.io/enforce-version': 'latest',
            },
          },
        },
      });
    });

    afterAll(async () => {
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    });

    async function createPod(w: Workload): Promise<Reply> {
      // The pod the controller would create from the template (kube-system's priority classes stay out of it: the
      // apiserver limits them to kube-system, which is not what this checks).
      const { priorityClassName: _ignored, ...spec } = w.pod;
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'cloud-controller-manager', namespace, labels: w.object.spec?.template.metadata?.labels },
        spec,
      };
      return api(
        info,
        'POST',
        `/api/v1/namespaces/${namespace}/pods?dryRun=All&fieldValidation=Strict`,
        JSON.stringify(pod),
        'application/json',
      );
    }

    it('admits the Deployment’s pod', async () => {
      const reply = await createPod(deployment());
      expect(reply.status, why(reply)).toBe(201);
    });

    it('refuses the DaemonSet’s pod for its host network (it needs the privileged level kube-system has)', async () => {
      const reply = await createPod(daemonSet());
      expect(reply.status, why(reply)).toBe(403);
      expect(why(reply)).toContain('violates PodSecurity "restricted:latest"');
      expect(why(reply)).toContain('hostNetwork=true');
    });
  });

  describe('wasm-ccm started with the Deployment’s arguments', () => {
    const w = deployment();
    let ccm: CCMProcess | undefined;
    let cloud: Awaited<ReturnType<typeof startDevcloud>> | undefined;

    afterAll(async () => {
      await ccm?.stop();
      await cloud?.stop();
    });

    it('answers its startup, liveness and readiness probes, keeps /metrics closed, and stops on SIGTERM', async () => {
      await applyManifests(admin, loadManifests('rbac.yaml'));
      const { token } = await ccmIdentity(info, admin);
      cloud = await startDevcloud();
      const port = await freePort();
      // The manifests' cloud (devcloud.example:8990) becomes this devcloud; everything else is as written.
      const manifestHost = flag(w.container, 'plugin-allowed-hosts') as string;
      const localHost = `127.0.0.1:${cloud.port}`;
      const dir = mkdtempSync(join(info.dir, 'manifest-ccm-'));
      const args = flagPairs(w.container).map(([name, value]) => {
        if (name === 'plugin') return `--plugin=${builtPlugin('devcloud')}`;
        if (name === 'secure-port') return `--secure-port=${port}`;
        if (name === 'plugin-allowed-hosts') return `--plugin-allowed-hosts=${localHost}`;
        if (name !== 'cloud-config' && name !== 'plugin-credentials') return `--${name}=${value}`;
        const content = sourceContent(mountedFile(w, value));
        expect(content, `--${name}`).toBeDefined();
        // This devcloud speaks plain http on loopback: its URL becomes http, and the credential says insecure (which
        // the host allows for loopback hosts only); the manifests' own cloud is https.
        const text = (content as Buffer)
          .toString('utf8')
          .replaceAll(`https://${manifestHost}`, `http://${localHost}`)
          .replaceAll(manifestHost, localHost)
          .replace('"hosts":', '"insecure": true, "hosts":')
          .replace(/REPLACE-[A-Z-]+/, (cloud as NonNullable<typeof cloud>).token);
        const local = join(dir, value);
        mkdirSync(dirname(local), { recursive: true });
        writeFileSync(local, text, { mode: 0o600 });
        return `--${name}=${local}`;
      });
      expect(args.filter((a) => a.includes(manifestHost))).toEqual([]);
      ccm = new CCMProcess({ info, token, args });

      const probes = {
        startup: w.container.startupProbe,
        liveness: w.container.livenessProbe,
        readiness: w.container.readinessProbe,
      } satisfies Record<string, V1Probe | undefined>;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const reply = await probe(port, probes.startup?.httpGet?.path as string).catch(() => undefined);
        if (reply?.status === 200) break;
        if (!ccm.process.running) throw new Error(`wasm-ccm exited:\n${ccm.process.tail()}`);
        if (Date.now() > deadline) throw new Error(`startup probe never passed:\n${ccm.process.tail()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const [name, p] of Object.entries(probes)) {
        expect(p?.httpGet?.scheme, name).toBe('HTTPS');
        const reply = await probe(port, p?.httpGet?.path as string);
        expect(reply.status, `${name} ${p?.httpGet?.path}: ${why(reply)}`).toBe(200);
      }
      expect((await probe(port, '/metrics')).status).toBe(401);
      expect((await probe(port, '/debug/plugins')).status).toBe(401);

      const started = Date.now();
      const code = await ccm.stop();
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan((w.pod.terminationGracePeriodSeconds ?? 30) * 1000);
      expect(ccm.logs().filter((r) => r.level === 'error')).toEqual([]);
    });
  });
});
