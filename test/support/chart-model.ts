// charts/wasm-ccm as data for tests: a real helm (built and cached by scripts/build-helm.sh, run here when missing)
// renders the chart, and the output is split into objects, each with the template it came from and its own text.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  KubernetesObject,
  V1ConfigMap,
  V1DaemonSet,
  V1Deployment,
  V1PodSpec,
  V1Secret,
} from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, beforeAll } from 'vitest';
import { builtPlugin } from '../../lab/plugins/index.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CHART_DIR = join(ROOT, 'charts', 'wasm-ccm');
export const EXAMPLES_DIR = join(CHART_DIR, 'examples');
const BUILD_SCRIPT = join(ROOT, 'scripts', 'build-helm.sh');

/** The one value the default values leave to the operator: the module (the devcloud plugin build:plugins makes). */
export const DEVCLOUD_MODULE = { 'plugin.module': builtPlugin('devcloud') } as const;
const HELM_BUILD_TIMEOUT_MS = 20 * 60_000;

let helmPath: string | undefined;

/** The cached helm binary; builds it first when missing (minutes on a cold machine). */
export function helmBinary(): string {
  helmPath ??= execFileSync('bash', [BUILD_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: HELM_BUILD_TIMEOUT_MS,
  }).trim();
  return helmPath;
}

/** For a test file: helm built before its tests (minutes, once per machine), and a scratch directory removed after. */
export function chartTestSetup(prefix: string): { scratch: string } {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  beforeAll(() => {
    helmBinary();
  }, HELM_BUILD_TIMEOUT_MS);
  return { scratch };
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with `args`; never throws for a non-zero exit (tests read the message). */
export function helm(args: readonly string[]): Promise<HelmResult> {
  const bin = helmBinary();
  return new Promise((resolve) => {
    execFile(bin, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RenderOptions {
  /** Values files (-f), in order. */
  valuesFiles?: readonly string[];
  /** --set-file name=path. */
  setFiles?: Readonly<Record<string, string>>;
  /** --set-json name=json (a value of any type, exactly). */
  setJson?: Readonly<Record<string, unknown>>;
  namespace?: string;
  releaseName?: string;
}

export function valueArgs(options: RenderOptions): string[] {
  const args: string[] = [];
  for (const f of options.valuesFiles ?? []) args.push('-f', f);
  for (const [k, v] of Object.entries(options.setFiles ?? {})) args.push('--set-file', `${k}=${v}`);
  for (const [k, v] of Object.entries(options.setJson ?? {})) args.push('--set-json', `${k}=${JSON.stringify(v)}`);
  return args;
}

export interface RenderedObject {
  /** The template it came from, e.g. "wasm-ccm/templates/rbac.yaml". */
  source: string;
  /** The document's own text, as helm printed it. */
  text: string;
  object: KubernetesObject;
}

/** `helm template`; the rendered documents (empty ones dropped), or the helm failure. */
export async function helmTemplate(options: RenderOptions = {}): Promise<HelmResult & { objects: RenderedObject[] }> {
  const result = await helm([
    'template',
    options.releaseName ?? 'wasm-ccm',
    CHART_DIR,
    '--namespace',
    options.namespace ?? 'kube-system',
    ...valueArgs(options),
  ]);
  return { ...result, objects: result.code === 0 ? splitRendered(result.stdout) : [] };
}

/** Splits helm's output at its `---` separators, keeping each document's `# Source:` template. */
export function splitRendered(output: string): RenderedObject[] {
  const out: RenderedObject[] = [];
  for (const chunk of output.split(/^---[ \t]*$/m)) {
    const source = /^# Source: (.+)$/m.exec(chunk)?.[1] ?? '';
    if (!chunk.split('\n').some((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))) continue;
    const object = load(chunk) as KubernetesObject | null | undefined;
    if (object === null || object === undefined || typeof object !== 'object') continue;
    out.push({ source, text: chunk, object });
  }
  return out;
}

/** The one object of `kind` (and `name`, when given) in a rendering. */
export function only<T extends KubernetesObject>(objects: readonly RenderedObject[], kind: string, name?: string): T {
  const found = objects.filter(
    (o) => o.object.kind === kind && (name === undefined || o.object.metadata?.name === name),
  );
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return (found[0] as RenderedObject).object as T;
}

/** Every examples/*.yaml, by file name. */
export function exampleFiles(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

/** The workload (DaemonSet or Deployment) of a rendering and its pod. */
export function renderedPod(objects: readonly RenderedObject[]): { kind: string; pod: V1PodSpec } {
  const workload = objects.find((o) => o.object.kind === 'DaemonSet' || o.object.kind === 'Deployment');
  const pod = (workload?.object as V1DaemonSet | V1Deployment | undefined)?.spec?.template.spec;
  if (!workload || !pod) throw new Error('no workload rendered');
  return { kind: workload.object.kind as string, pod };
}

/** Every key of the rendered Secret mounted where `path` is, by key (none for a Secret the rendering lacks). */
function mountedSiblings(objects: readonly RenderedObject[], pod: V1PodSpec, path: string): Record<string, string> {
  const mount = pod.containers[0]?.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
  const secretName = pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName;
  const secret = objects.find((o) => o.object.kind === 'Secret' && o.object.metadata?.name === secretName);
  return (secret?.object as V1Secret | undefined)?.stringData ?? {};
}

/** What a ConfigMap or Secret of the rendering, mounted in the pod, holds at `path` in the container. */
export function mountedContent(objects: readonly RenderedObject[], pod: V1PodSpec, path: string): string | undefined {
  const mount = pod.containers[0]?.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  const key = path.slice((mount?.mountPath.length ?? 0) + 1);
  if (volume?.configMap) return only<V1ConfigMap>(objects, 'ConfigMap', volume.configMap.name).data?.[key];
  const secretName = volume?.secret?.secretName;
  if (secretName) {
    const secret = objects.find((o) => o.object.kind === 'Secret' && o.object.metadata?.name === secretName);
    return (secret?.object as V1Secret | undefined)?.stringData?.[key];
  }
  return undefined;
}

/**
 * The container's arguments with the plugin configuration, and every file it names, written under `root` where
 * the pod would see them (paths rewritten to point there): what the kubelet's mounts would give the CCM. A file no
 * rendered object provides (an image volume's module, a Secret of the operator's) is written as `placeholder`, or,
 * for a credentials file, which the CCM parses at start, as an empty list of credentials.
 */
export function materializeArgs(objects: readonly RenderedObject[], root: string, placeholder = 'x'): string[] {
  const { pod } = renderedPod(objects);
  const args = pod.containers[0]?.args ?? [];
  const configPath = args.find((a) => a.startsWith('--plugin-config='))?.slice('--plugin-config='.length);
  if (configPath === undefined) throw new Error('no --plugin-config in the rendered arguments');
  const config = mountedContent(objects, pod, configPath);
  if (config === undefined) throw new Error(`nothing rendered is mounted at ${configPath}`);
  const named = [...config.matchAll(/(?:file|publicKeyFile|cloudConfigFile): (\/\S+)/g)].map((m) => m[1] as string);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text, { mode: 0o600 });
  };
  const credentialFiles = new Set([...config.matchAll(/credentials:\s+file: (\/\S+)/g)].map((m) => m[1] as string));
  for (const path of named) {
    const absent = credentialFiles.has(path) ? '{"credentials": []}' : placeholder;
    write(path, mountedContent(objects, pod, path) ?? absent);
    // The files a credentials file names (an AWS key's parts) are further keys of its Secret, beside it.
    if (credentialFiles.has(path)) {
      for (const [key, text] of Object.entries(mountedSiblings(objects, pod, path)))
        write(join(dirname(path), key), text);
    }
  }
  write(
    configPath,
    named.reduce((text, p) => text.replaceAll(`: ${p}`, `: ${join(root, p)}`), config),
  );
  return args.map((a) => (a === `--plugin-config=${configPath}` ? `--plugin-config=${join(root, configPath)}` : a));
}
