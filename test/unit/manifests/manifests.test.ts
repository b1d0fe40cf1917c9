// manifests/: the workloads run the CCM the way the manifests' comments say (pod security, probes on the
// always-allowed paths, tolerations, a memory limit that covers the plugin pool), their arguments are flags the CCM
// knows and parse (with every mounted file materialized from the ConfigMaps and Secret that provide it), and the
// kustomization, its DaemonSet Component and the templates account for every file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  V1ConfigMap,
  V1PodDisruptionBudget,
  V1PolicyRule,
  V1Role,
  V1Secret,
  V1ServiceAccount,
  V1Toleration,
} from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CCM_FLAGS, parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import { entryMatches, parseEntry } from '../../../host/src/plugin/broker/allow-list.ts';
import {
  daemonSet,
  deployment,
  flag,
  flagPairs,
  generatorKeys,
  kubernetesDocs,
  kustomization,
  mountedFile,
  objectIn,
  sourceContent,
  type Workload,
  yamlFiles,
} from '../../support/manifest-model.ts';

const RUN_AS = 65532;
const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const CONTROL_PLANE = 'node-role.kubernetes.io/control-plane';
const NOT_READY = 'node.kubernetes.io/not-ready';
/** Path-valued flags: their values name files inside the container. */
const PATH_FLAGS = ['plugin', 'cloud-config', 'plugin-credentials', 'plugin-config', 'tls-cert-file'] as const;
/**
 * RSS of everything but the plugin instances' Wasm memory, measured running the compiled CCM (the image's layout)
 * against the test control plane while it initialized 300 Nodes and 60 LoadBalancer Services with a pool of 3,
 * main-thread heap capped at 256 MiB (see the comments in manifests/deployment.yaml).
 */
const MEASURED_PEAK_MIB = 420;
/** Idle instances the pool keeps beyond --plugin-pool-size (host/src/plugin/runtime/load-plugin.ts). */
const POOL_SPARES = 1;

function mebibytes(quantity: string | undefined): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '');
  if (!m) throw new Error(`unexpected memory quantity "${quantity}" (use Mi or Gi)`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}

function toleration(tolerations: V1Toleration[] | undefined, key: string): V1Toleration | undefined {
  return (tolerations ?? []).find((t) => t.key === key);
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe.each([deployment(), daemonSet()])('$label ($file)', (w: Workload) => {
  it('runs in kube-system as the ServiceAccount of rbac.yaml', () => {
    const sa = objectIn<V1ServiceAccount>('rbac.yaml', 'ServiceAccount');
    expect(w.object.metadata?.namespace).toBe('kube-system');
    expect(sa.metadata?.namespace).toBe(w.object.metadata?.namespace);
    expect(w.pod.serviceAccountName).toBe(sa.metadata?.name);
    expect(w.pod.automountServiceAccountToken).not.toBe(false);
  });

  it('selects exactly the pods of its template', () => {
    const labels = w.object.spec?.template.metadata?.labels ?? {};
    const selector = w.object.spec?.selector.matchLabels ?? {};
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    for (const [k, v] of Object.entries(selector)) expect(labels[k], k).toBe(v);
  });

  it('runs non-root with a read-only root file system, no privilege escalation, no capabilities, RuntimeDefault seccomp', () => {
    const pod = w.pod.securityContext;
    expect(pod?.runAsNonRoot).toBe(true);
    expect(pod?.runAsUser).toBe(RUN_AS);
    expect(pod?.seccompProfile?.type).toBe('RuntimeDefault');
    for (const c of [...w.pod.containers, ...(w.pod.initContainers ?? [])]) {
      const sc = c.securityContext;
      expect(sc?.runAsNonRoot, c.name).toBe(true);
      expect(sc?.runAsUser, c.name).toBe(RUN_AS);
      expect(sc?.readOnlyRootFilesystem, c.name).toBe(true);
      expect(sc?.allowPrivilegeEscalation, c.name).toBe(false);
      expect(sc?.privileged, c.name).not.toBe(true);
      expect(sc?.capabilities?.drop, c.name).toEqual(['ALL']);
      expect(sc?.capabilities?.add ?? [], c.name).toEqual([]);
      expect(sc?.seccompProfile?.type, c.name).toBe('RuntimeDefault');
    }
  });

  it('lets the non-root user read the mounted Secret (fsGroup + group-readable mode)', () => {
    const secretVolumes = (w.pod.volumes ?? []).filter((v) => v.secret);
    expect(secretVolumes.length).toBeGreaterThan(0);
    expect(w.pod.securityContext?.fsGroup).toBe(RUN_AS);
    for (const v of secretVolumes) {
      const mode = v.secret?.defaultMode ?? 0o644;
      expect(mode & 0o040, v.name).toBe(0o040); // group read
      expect(mode & 0o007, v.name).toBe(0); // nothing for others
    }
  });

  it('probes /livez and /readyz over HTTPS on --secure-port, paths the CCM serves without a token', () => {
    const port = Number(flag(w.container, 'secure-port') ?? CCM_FLAGS['secure-port'].default);
    expect(port).toBe(10258);
    const open = (flag(w.container, 'authorization-always-allow-paths')?.split(',') ?? [
      ...CCM_FLAGS['authorization-always-allow-paths'].default,
    ]) as string[];
    const probes = {
      liveness: w.container.livenessProbe,
      readiness: w.container.readinessProbe,
      startup: w.container.startupProbe,
    };
    expect(probes.liveness?.httpGet?.path).toBe('/livez');
    expect(probes.readiness?.httpGet?.path).toBe('/readyz');
    expect(probes.startup?.httpGet?.path).toBe('/livez');
    for (const [name, probe] of Object.entries(probes)) {
      expect(probe?.httpGet?.scheme, name).toBe('HTTPS');
      expect(probe?.httpGet?.port, name).toBe(port);
      expect(open, name).toContain(probe?.httpGet?.path);
    }
    expect(w.container.ports?.map((p) => p.containerPort)).toContain(port);
  });

  it('gives a slow start (apiserver wait, plugin initialization) a minute or more before liveness applies', () => {
    const s = w.container.startupProbe;
    expect((s?.periodSeconds ?? 10) * (s?.failureThreshold ?? 3)).toBeGreaterThanOrEqual(60);
  });

  it('waits longer than the CCM’s own 30 s shutdown before SIGKILL', () => {
    expect(w.pod.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(30);
  });

  it('tolerates the uninitialized, control-plane and not-ready taints', () => {
    const tol = w.pod.tolerations;
    expect(toleration(tol, UNINITIALIZED)).toMatchObject({ value: 'true', effect: 'NoSchedule' });
    expect(toleration(tol, UNINITIALIZED)?.operator ?? 'Equal').toBe('Equal');
    expect(toleration(tol, CONTROL_PLANE)).toMatchObject({ effect: 'NoSchedule' });
    expect(toleration(tol, NOT_READY)).toBeDefined();
  });

  it('requests CPU and memory and limits memory, without a CPU limit', () => {
    const r = w.container.resources;
    expect(r?.requests?.cpu).toBeDefined();
    expect(mebibytes(r?.requests?.memory)).toBeGreaterThan(0);
    expect(mebibytes(r?.limits?.memory)).toBeGreaterThanOrEqual(mebibytes(r?.requests?.memory));
    expect(r?.limits?.cpu).toBeUndefined();
  });

  it('has a memory limit that covers the measured process plus every plugin instance at its Wasm memory cap', () => {
    const pool = Number(flag(w.container, 'plugin-pool-size'));
    const capMb = Number(flag(w.container, 'plugin-memory-limit-mb'));
    // Explicit values, so this sum is what runs (0 would mean "one per concurrent sync + 1").
    expect(pool).toBeGreaterThan(0);
    expect(capMb).toBeGreaterThan(0);
    const syncs = ['concurrent-service-syncs', 'concurrent-node-syncs'].map((n) =>
      Number(flag(w.container, n) ?? CCM_FLAGS[n as 'concurrent-node-syncs'].default),
    );
    expect(pool, 'one instance per concurrent sync, plus one').toBeGreaterThanOrEqual(syncs[0]! + syncs[1]!);
    const limit = mebibytes(w.container.resources?.limits?.memory);
    expect(MEASURED_PEAK_MIB + (pool + POOL_SPARES) * capMb).toBeLessThanOrEqual(limit);
    // The budget assumes the main thread's heap is capped; the cap must fit inside the measured share.
    const nodeOptions = w.container.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
    const heap = /--max-old-space-size=(\d+)/.exec(nodeOptions);
    expect(heap, 'NODE_OPTIONS=--max-old-space-size').not.toBeNull();
    expect(Number(heap?.[1])).toBeLessThan(MEASURED_PEAK_MIB);
  });

  it('passes only flags the CCM knows, each once, as --name=value', () => {
    const names = flagPairs(w.container).map(([n]) => n);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(Object.keys(CCM_FLAGS), `--${n}`).toContain(n);
    expect(new Set(names).size).toBe(names.length);
    expect(w.container.command ?? [], 'the image ENTRYPOINT runs the CCM').toEqual([]);
  });

  it('campaigns for the one Lease the leader-election Role of rbac.yaml may update', () => {
    expect(flag(w.container, 'leader-elect')).toBe('true');
    const role = objectIn<V1Role>('rbac.yaml', 'Role', 'cloud-controller-manager:leader-election');
    const names = (role.rules ?? []).flatMap((r) => (r.verbs.includes('update') ? (r.resourceNames ?? []) : []));
    expect(names).toContain(flag(w.container, 'leader-elect-resource-name') ?? 'cloud-controller-manager');
    expect(flag(w.container, 'leader-elect-resource-namespace') ?? 'kube-system').toBe(role.metadata?.namespace);
  });

  it('mounts every file its flags name, from a ConfigMap, Secret or generator of the manifests, without subPath', () => {
    for (const name of PATH_FLAGS) {
      const path = flag(w.container, name);
      if (path === undefined) continue;
      const source = mountedFile(w, path);
      if (source.kind === 'ConfigMap' && generatorKeys(source.name).length > 0) {
        expect(generatorKeys(source.name), `--${name}`).toContain(source.key);
      }
      expect(
        sourceContent(source),
        `--${name}=${path} (${source.kind} ${source.name} key ${source.key})`,
      ).toBeDefined();
    }
    expect(flag(w.container, 'plugin')).toBeDefined();
  });

  it('parses as a complete command line once its mounted files exist (parseCommandLine)', () => {
    const root = mkdtempSync(join(tmpdir(), 'wasm-ccm-manifest-'));
    tempDirs.push(root);
    const args = flagPairs(w.container).map(([name, value]) => {
      if (!(PATH_FLAGS as readonly string[]).includes(name)) return `--${name}=${value}`;
      const content = sourceContent(mountedFile(w, value));
      const local = join(root, value);
      mkdirSync(dirname(local), { recursive: true });
      writeFileSync(local, content as Buffer);
      return `--${name}=${local}`;
    });
    const parsed = parseCommandLine(args);
    expect(parsed.kind).toBe('run');
    if (parsed.kind !== 'run') return;
    expect(parsed.options.flags['cloud-provider']).toBe('devcloud');
    expect(parsed.options.pluginConfig).toBeDefined();
    expect(parsed.options.clusterCIDRs).toHaveLength(1);
    expect(parsed.options.cloudConfig).toContain('"region"');
  });

  it('reaches only the allowed hosts: the cloud config URL and every credential host are in --plugin-allowed-hosts', () => {
    const allowed = (flag(w.container, 'plugin-allowed-hosts') ?? '').split(',').map((h) => parseEntry(h));
    expect(allowed.length).toBeGreaterThan(0);
    const config = JSON.parse(
      (sourceContent(mountedFile(w, flag(w.container, 'cloud-config') as string)) as Buffer).toString('utf8'),
    ) as { url: string };
    const url = new URL(config.url);
    expect(
      allowed.some((a) => entryMatches(a, url)),
      url.host,
    ).toBe(true);
    const creds = parseCredentialFile(
      (sourceContent(mountedFile(w, flag(w.container, 'plugin-credentials') as string)) as Buffer).toString('utf8'),
      'credentials.yaml',
    );
    expect(creds.length).toBeGreaterThan(0);
    for (const c of creds) {
      for (const h of c.hosts) {
        const ok = allowed.some((a) => a.hostname === h.hostname && (a.port === undefined || a.port === h.port));
        expect(ok, `${c.name}: ${h.hostname}:${h.port}`).toBe(true);
      }
    }
    // A credential goes over https only (insecure entries are for loopback hosts): the cloud URL it names is https.
    const forCloud = creds.filter((c) => c.hosts.some((h) => h.hostname === url.hostname));
    expect(forCloud.length).toBeGreaterThan(0);
    expect(url.protocol).toBe('https:');
  });
});

describe('Deployment', () => {
  const d = deployment();

  it('runs 2 replicas that keep a standby through a rollout, spread over nodes when it can', () => {
    const spec = d.object.spec as NonNullable<typeof d.object.spec> & { replicas?: number; strategy?: unknown };
    expect(spec.replicas).toBe(2);
    expect(spec.strategy).toMatchObject({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } });
    const anti = d.pod.affinity?.podAntiAffinity;
    expect(anti?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm.topologyKey).toBe(
      'kubernetes.io/hostname',
    );
    expect(anti?.requiredDuringSchedulingIgnoredDuringExecution ?? []).toEqual([]);
  });

  it('uses the pod network, and is evicted from a node that stays NotReady (NoSchedule toleration only)', () => {
    expect(d.pod.hostNetwork ?? false).toBe(false);
    expect(toleration(d.pod.tolerations, NOT_READY)?.effect).toBe('NoSchedule');
  });

  it('has a PodDisruptionBudget over its pods that lets one go at a time', () => {
    const pdb = objectIn<V1PodDisruptionBudget>('pdb.yaml', 'PodDisruptionBudget');
    expect(pdb.metadata?.namespace).toBe(d.object.metadata?.namespace);
    const labels = d.object.spec?.template.metadata?.labels ?? {};
    const selector = pdb.spec?.selector?.matchLabels ?? {};
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    for (const [k, v] of Object.entries(selector)) expect(labels[k], k).toBe(v);
    const budget = pdb.spec?.maxUnavailable ?? pdb.spec?.minAvailable;
    expect(budget).toBe(1);
    expect(pdb.spec?.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });
});

describe('DaemonSet', () => {
  const ds = daemonSet();
  const dep = deployment();

  it('runs on control-plane nodes only, on the host network, resolving names with the node’s resolver', () => {
    expect(ds.pod.nodeSelector).toEqual({ [CONTROL_PLANE]: '' });
    expect(ds.pod.hostNetwork).toBe(true);
    expect(ds.pod.dnsPolicy).toBe('Default');
  });

  it('tolerates a NotReady node (every effect) and a NetworkUnavailable one: it is what they wait for', () => {
    expect(toleration(ds.pod.tolerations, NOT_READY)).toMatchObject({ operator: 'Exists' });
    expect(toleration(ds.pod.tolerations, NOT_READY)?.effect).toBeUndefined();
    expect(toleration(ds.pod.tolerations, 'node.kubernetes.io/network-unavailable')).toMatchObject({
      operator: 'Exists',
    });
  });

  it('runs the same container, volumes and pod security as the Deployment (no drift between the variants)', () => {
    expect(ds.container).toEqual(dep.container);
    expect(ds.pod.volumes).toEqual(dep.pod.volumes);
    expect(ds.pod.securityContext).toEqual(dep.pod.securityContext);
    expect(ds.pod.serviceAccountName).toBe(dep.pod.serviceAccountName);
    expect(ds.pod.priorityClassName).toBe(dep.pod.priorityClassName);
    expect(ds.object.metadata?.name).toBe(dep.object.metadata?.name);
    expect(ds.object.spec?.template.metadata?.labels).toEqual(dep.object.spec?.template.metadata?.labels);
  });
});

describe('templates', () => {
  const d = deployment();

  it('credentials.yaml is a valid credentials file holding only a placeholder token', () => {
    const secret = objectIn<V1Secret>('credentials.yaml', 'Secret');
    const text = secret.stringData?.['credentials.json'] ?? '';
    const creds = parseCredentialFile(text, 'credentials.yaml');
    expect(creds.map((c) => c.secret.kind)).toEqual(['bearer']);
    const token = creds[0]?.secret.kind === 'bearer' ? creds[0].secret.token : '';
    expect(token).toMatch(/^REPLACE-/);
    expect(secret.data ?? {}).toEqual({});
  });

  it('the plugin ConfigMap template holds a valid Wasm module under the key --plugin names, like the generator', () => {
    const cm = objectIn<V1ConfigMap>('plugin-configmap.yaml', 'ConfigMap');
    const source = mountedFile(d, flag(d.container, 'plugin') as string);
    expect(source.kind).toBe('ConfigMap');
    expect(cm.metadata?.name).toBe(source.name);
    expect(Object.keys(cm.binaryData ?? {})).toEqual([source.key]);
    expect(cm.data ?? {}).toEqual({});
    const bytes = Buffer.from(cm.binaryData?.[source.key] ?? '', 'base64');
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(generatorKeys(source.name)).toEqual([source.key]);
  });

  it('the cloud config carries no credentials (they belong to the Secret the host keeps)', () => {
    const cm = objectIn<V1ConfigMap>('cloud-config.yaml', 'ConfigMap');
    const config = JSON.parse(cm.data?.['cloud.json'] ?? '') as Record<string, unknown>;
    expect(Object.keys(config).sort()).toEqual(['region', 'url']);
  });

  it('labels every object app.kubernetes.io/name=wasm-ccm and puts every namespaced one in kube-system', () => {
    for (const { file, object } of kubernetesDocs()) {
      const what = `${file}: ${object.kind} ${object.metadata?.name}`;
      expect(object.metadata?.labels?.['app.kubernetes.io/name'], what).toBe('wasm-ccm');
      if (object.metadata?.namespace !== undefined) expect(object.metadata.namespace, what).toBe('kube-system');
    }
  });
});

describe('kustomization', () => {
  const root = kustomization();
  const component = kustomization('daemonset');
  const controllerAccounts = kustomization('controller-accounts');
  const imageVolume = kustomization('image-volume');
  const generated = (root.configMapGenerator ?? []).map((g) => g.name);
  /** Plain-YAML counterparts of generated objects (for installs without kustomize), not kustomize resources. */
  const templates = yamlFiles()
    .filter((f) => !f.includes('/') && f !== 'kustomization.yaml')
    .filter((f) => kubernetesDocs().some((d) => d.file === f && generated.includes(d.object.metadata?.name ?? '')));

  it('lists every top-level manifest as a resource, except the templates of its generated objects', () => {
    const topLevel = yamlFiles().filter((f) => !f.includes('/') && f !== 'kustomization.yaml');
    expect(templates).toEqual(['plugin-configmap.yaml']);
    expect([...(root.resources ?? [])].sort()).toEqual(topLevel.filter((f) => !templates.includes(f)));
  });

  it('generates the plugin ConfigMap the Deployment mounts, in place (no hash suffix: hot swap)', () => {
    const source = mountedFile(deployment(), flag(deployment().container, 'plugin') as string);
    const gen = (root.configMapGenerator ?? []).find((g) => g.name === source.name);
    expect(gen?.namespace).toBe('kube-system');
    expect(gen?.files).toEqual([`plugins/${source.key}`]);
    expect(gen?.options?.disableNameSuffixHash).toBe(true);
    expect(gen?.options?.labels?.['app.kubernetes.io/name']).toBe('wasm-ccm');
  });

  it('offers the DaemonSet as a Component that adds it and deletes the Deployment and its PDB', () => {
    expect(component.kind).toBe('Component');
    expect(component.apiVersion).toBe('kustomize.config.k8s.io/v1alpha1');
    const own = yamlFiles().filter((f) => f.startsWith('daemonset/') && f !== 'daemonset/kustomization.yaml');
    expect((component.resources ?? []).map((r) => `daemonset/${r}`)).toEqual(own);
    const deleted = (component.patches ?? []).map((p) => {
      expect(p.patch, 'inline patch').toMatch(/^\$patch: delete$/m);
      const kind = /^kind: (\S+)$/m.exec(p.patch ?? '')?.[1];
      const name = /^ {2}name: (\S+)$/m.exec(p.patch ?? '')?.[1];
      const namespace = /^ {2}namespace: (\S+)$/m.exec(p.patch ?? '')?.[1];
      return `${kind} ${namespace}/${name}`;
    });
    const pdb = objectIn<V1PodDisruptionBudget>('pdb.yaml', 'PodDisruptionBudget');
    const dep = deployment().object;
    expect(deleted.sort()).toEqual(
      [
        `Deployment ${dep.metadata?.namespace}/${dep.metadata?.name}`,
        `PodDisruptionBudget ${pdb.metadata?.namespace}/${pdb.metadata?.name}`,
      ].sort(),
    );
    // Not enabled by default: the default install is the Deployment.
    expect(root.components ?? []).toEqual([]);
  });

  it('offers the RBAC of --use-service-account-credentials as a Component that leaves the CCM only reading', () => {
    expect(controllerAccounts.kind).toBe('Component');
    expect(controllerAccounts.resources).toEqual(['rbac.yaml']);
    const [patch] = controllerAccounts.patches ?? [];
    expect(patch?.target).toEqual({ kind: 'ClusterRole', name: 'system:cloud-controller-manager' });
    const rules = (load(patch?.patch ?? '') as { path: string; value: V1PolicyRule[] }[])[0]?.value ?? [];
    const writes = rules.filter(
      (r) =>
        r.resources?.some((x) => x.startsWith('nodes') || x.startsWith('services')) &&
        r.verbs.some((v) => v !== 'get' && v !== 'list' && v !== 'watch'),
    );
    expect(rules.length).toBeGreaterThan(0);
    expect(writes).toEqual([]);
  });

  it('offers the plugin from an image volume as a Component: the mounted directory of --plugin, pinned by digest', () => {
    expect(imageVolume.kind).toBe('Component');
    expect(imageVolume.resources ?? []).toEqual([]);
    const [patch] = imageVolume.patches ?? [];
    const patched = load(patch?.patch ?? '') as {
      kind: string;
      metadata: { name: string };
      spec: { template: { spec: { volumes: Array<Record<string, unknown>> } } };
    };
    const dep = deployment();
    expect(patched.kind).toBe('Deployment');
    expect(patched.metadata.name).toBe(dep.object.metadata?.name);
    // The volume it replaces is the one the Deployment mounts the --plugin file from.
    const source = mountedFile(dep, flag(dep.container, 'plugin') as string);
    const [volume] = patched.spec.template.spec.volumes;
    expect(volume?.name).toBe(source.volume);
    expect(volume?.configMap).toBeNull();
    const image = volume?.image as { reference: string; pullPolicy: string };
    expect(image.reference).toMatch(/@sha256:[0-9a-f]{64}$/);
    expect(image.pullPolicy).toBe('IfNotPresent');
    const mount = dep.container.volumeMounts?.find((m) => m.name === source.volume);
    expect(mount?.readOnly).toBe(true);
  });

  it('accounts for every YAML file under manifests/', () => {
    const covered = new Set([
      'kustomization.yaml',
      'daemonset/kustomization.yaml',
      ...(root.resources ?? []),
      ...(component.resources ?? []).map((r) => `daemonset/${r}`),
      'controller-accounts/kustomization.yaml',
      ...(controllerAccounts.resources ?? []).map((r) => `controller-accounts/${r}`),
      'image-volume/kustomization.yaml',
      ...templates,
    ]);
    expect(yamlFiles().filter((f) => !covered.has(f))).toEqual([]);
  });
});
