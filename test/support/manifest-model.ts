// The operator manifests under manifests/ as data for tests: every YAML document with its file, the kustomization
// and its Component, the workloads, and what a path inside a container resolves to (volumeMount -> volume ->
// ConfigMap, Secret or the kustomize configMapGenerator -> the bytes that file holds).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import type {
  KubernetesObject,
  V1ConfigMap,
  V1Container,
  V1DaemonSet,
  V1Deployment,
  V1PodSpec,
  V1Secret,
} from '@kubernetes/client-node';
import { loadManifests, MANIFESTS_DIR } from '../../lab/controlplane/index.ts';

export { MANIFESTS_DIR };

export const KUSTOMIZE_KINDS = new Set(['Kustomization', 'Component']);

/** YAML files under manifests/ (relative, "/"-separated), sorted. */
export function yamlFiles(dir = MANIFESTS_DIR, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...yamlFiles(join(dir, entry.name), rel));
    else if (/\.ya?ml$/.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

export interface ManifestDoc {
  file: string;
  /** Parsed with client-node's typed deserializer: fields it does not know are dropped (see rawDocuments). */
  object: KubernetesObject;
}

/** Every Kubernetes object (not kustomize's own files) in every YAML file under manifests/. */
export function kubernetesDocs(): ManifestDoc[] {
  return yamlFiles()
    .flatMap((file) => loadManifests(file).map((object) => ({ file, object })))
    .filter((d) => !KUSTOMIZE_KINDS.has(d.object.kind ?? ''));
}

/**
 * The documents of a YAML file as their own text, in order, with the parsed object of each. Sent as is to the
 * apiserver (application/apply-patch+yaml), so a misspelled field is the apiserver's to refuse rather than dropped
 * on the way by a typed deserializer.
 */
export function rawDocuments(file: string): { text: string; object: KubernetesObject }[] {
  const text = readFileSync(join(MANIFESTS_DIR, file), 'utf8');
  const chunks = text
    .split(/^---[ \t]*$/m)
    .filter((c) => c.split('\n').some((line) => line.trim() !== '' && !line.trimStart().startsWith('#')));
  const objects = loadManifests(file);
  if (chunks.length !== objects.length) {
    throw new Error(`${file}: ${chunks.length} YAML chunks but ${objects.length} parsed documents`);
  }
  return chunks.map((chunk, i) => ({ text: chunk, object: objects[i] as KubernetesObject }));
}

export interface Kustomization {
  apiVersion: string;
  kind: 'Kustomization' | 'Component';
  resources?: string[];
  components?: string[];
  configMapGenerator?: {
    name: string;
    namespace?: string;
    files?: string[];
    options?: { disableNameSuffixHash?: boolean; labels?: Record<string, string> };
  }[];
  patches?: { patch?: string; path?: string; target?: { kind?: string; name?: string } }[];
}

export function kustomization(dir = ''): Kustomization {
  const file = dir === '' ? 'kustomization.yaml' : `${dir}/kustomization.yaml`;
  const [doc] = loadManifests(file) as unknown as Kustomization[];
  if (!doc) throw new Error(`${file} is empty`);
  return doc;
}

/** The one object of `kind` named `name` in `file`. */
export function objectIn<T extends KubernetesObject>(file: string, kind: string, name?: string): T {
  const found = loadManifests(file).filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  if (found.length !== 1)
    throw new Error(`${file}: expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0] as T;
}

export interface Workload {
  label: string;
  file: string;
  object: V1Deployment | V1DaemonSet;
  pod: V1PodSpec;
  container: V1Container;
}

function workload(label: string, file: string, kind: 'Deployment' | 'DaemonSet'): Workload {
  const object = objectIn<V1Deployment | V1DaemonSet>(file, kind);
  const pod = object.spec?.template.spec;
  if (!pod) throw new Error(`${file}: ${kind} without a pod template`);
  const container = pod.containers.find((c) => c.name === 'cloud-controller-manager');
  if (!container) throw new Error(`${file}: no container named cloud-controller-manager`);
  return { label, file, object, pod, container };
}

export function deployment(): Workload {
  return workload('Deployment', 'deployment.yaml', 'Deployment');
}

export function daemonSet(): Workload {
  return workload('DaemonSet', 'daemonset/daemonset.yaml', 'DaemonSet');
}

/** The container's `--name=value` arguments as [name, value] pairs, in order. */
export function flagPairs(container: V1Container): [string, string][] {
  return (container.args ?? []).map((arg) => {
    const m = /^--([a-z0-9-]+)=(.*)$/.exec(arg);
    if (!m) throw new Error(`argument "${arg}" is not of the form --name=value`);
    return [m[1] as string, m[2] as string];
  });
}

export function flag(container: V1Container, name: string): string | undefined {
  return flagPairs(container).find(([n]) => n === name)?.[1];
}

/** Where the content of a file mounted in the container comes from. */
export type FileSource =
  | { kind: 'ConfigMap'; name: string; key: string; volume: string }
  | { kind: 'Secret'; name: string; key: string; volume: string };

export function mountedFile(w: Workload, path: string): FileSource {
  const mount = (w.container.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath}/`));
  if (!mount) throw new Error(`${w.label}: ${path} is under no volumeMount`);
  if (mount.subPath) throw new Error(`${w.label}: volumeMount ${mount.name} uses subPath (never updated in place)`);
  const key = posix.relative(mount.mountPath, path);
  const volume = (w.pod.volumes ?? []).find((v) => v.name === mount.name);
  if (!volume) throw new Error(`${w.label}: volumeMount ${mount.name} has no volume`);
  if (volume.configMap) return { kind: 'ConfigMap', name: volume.configMap.name ?? '', key, volume: volume.name };
  if (volume.secret) return { kind: 'Secret', name: volume.secret.secretName ?? '', key, volume: volume.name };
  throw new Error(`${w.label}: volume ${volume.name} is neither a ConfigMap nor a Secret`);
}

/** The bytes of a mounted ConfigMap or Secret key as the manifests define them; undefined when no manifest has it. */
export function sourceContent(source: FileSource): Buffer | undefined {
  for (const { object } of kubernetesDocs()) {
    if (object.kind !== source.kind || object.metadata?.name !== source.name) continue;
    if (object.metadata?.namespace !== 'kube-system') continue;
    if (source.kind === 'ConfigMap') {
      const cm = object as V1ConfigMap;
      const text = cm.data?.[source.key];
      if (text !== undefined) return Buffer.from(text, 'utf8');
      const b64 = cm.binaryData?.[source.key];
      if (b64 !== undefined) return Buffer.from(b64, 'base64');
    } else {
      const secret = object as V1Secret;
      const text = secret.stringData?.[source.key];
      if (text !== undefined) return Buffer.from(text, 'utf8');
      const b64 = secret.data?.[source.key];
      if (b64 !== undefined) return Buffer.from(b64, 'base64');
    }
  }
  return undefined;
}

/** The keys the kustomization's configMapGenerator puts into ConfigMap `name` (file basenames, or key=path). */
export function generatorKeys(name: string): string[] {
  const gen = (kustomization().configMapGenerator ?? []).find((g) => g.name === name);
  return (gen?.files ?? []).map((f) => (f.includes('=') ? (f.split('=')[0] as string) : basename(f)));
}
