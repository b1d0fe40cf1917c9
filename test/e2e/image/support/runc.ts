// The wasm-ccm image run as a kubelet runs the chart's pod, without a kubelet or a container engine: umoci unpacks
// the OCI layout `npm run build:image` wrote into a runtime bundle, and runc runs the image's own entrypoint as the
// image's user with the chart's security context (read-only root, no capabilities, no privilege escalation) and
// mounts (ServiceAccount token, plugin configuration, credentials, /tmp), in the host's network namespace so that it
// reaches the control plane's apiserver on loopback. Its own PID namespace makes Node PID 1, as in a pod.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LogRecord, readLogRecords } from '../../../../lab/ccm/index.ts';
import { ManagedProcess } from '../../../../lab/process/index.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** The OCI layout of the image built from the current sources, and its tag; throws naming the fix when absent. */
export function builtImage(): { layout: string; tag: string } {
  const script = join(ROOT, 'scripts', 'build-image.sh');
  const layout = execFileSync('bash', [script, '--print-dir'], { encoding: 'utf8' }).trim();
  if (!existsSync(join(layout, 'index.json'))) {
    throw new Error(`no image built from the current sources at ${layout}: run \`npm run build:image\` (as root)`);
  }
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return { layout, tag: version };
}

/** Throws naming the Debian package when `tool` is not on PATH (scripts/build-image.sh installs them). */
export function requireTool(tool: 'runc' | 'umoci'): void {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${tool} is not installed: run \`npm run build:image\` (as root), which installs it from Debian`);
  }
}

/** The parts of an OCI runtime spec (config.json) this harness sets. */
interface RuntimeSpec {
  process: {
    terminal?: boolean;
    user: { uid: number; gid: number; additionalGids?: number[] };
    args: string[];
    env: string[];
    cwd: string;
    capabilities?: Record<string, string[]>;
    noNewPrivileges?: boolean;
  };
  root: { path: string; readonly?: boolean };
  mounts: { destination: string; type: string; source: string; options: string[] }[];
  linux: { namespaces: { type: string }[] };
}

export interface ContainerOptions {
  /** Arguments after the image's ENTRYPOINT, as a pod's `args`. */
  args: readonly string[];
  /** Environment variables added to the image's. */
  env: Readonly<Record<string, string>>;
  /** Host directory -> container path, each bound read-only. */
  volumes: Readonly<Record<string, string>>;
}

/** Unpacks `image` into `bundle` (umoci) and writes its config.json as the chart's pod spec would make it. */
export function prepareBundle(image: { layout: string; tag: string }, bundle: string, options: ContainerOptions): void {
  execFileSync('umoci', ['unpack', '--image', `${image.layout}:${image.tag}`, bundle], { stdio: 'pipe' });
  const path = join(bundle, 'config.json');
  const spec = JSON.parse(readFileSync(path, 'utf8')) as RuntimeSpec;
  spec.process.terminal = false;
  spec.process.args = [...spec.process.args, ...options.args];
  spec.process.env = [...spec.process.env, ...Object.entries(options.env).map(([k, v]) => `${k}=${v}`)];
  // capabilities: drop ALL; allowPrivilegeEscalation: false; fsGroup 65532 (the group the credentials are shared with).
  spec.process.capabilities = { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] };
  spec.process.noNewPrivileges = true;
  spec.process.user.additionalGids = [65532];
  spec.root.readonly = true;
  spec.linux.namespaces = spec.linux.namespaces.filter((n) => n.type !== 'network');
  for (const [source, destination] of Object.entries(options.volumes)) {
    spec.mounts.push({ destination, type: 'bind', source, options: ['rbind', 'ro', 'nosuid', 'nodev'] });
  }
  spec.mounts.push({ destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'size=64m'] });
  writeFileSync(path, JSON.stringify(spec, null, 2));
}

/** A runc container in the foreground: runc forwards the signals it gets (SIGTERM) to the container's PID 1. */
export class RuncContainer {
  readonly process: ManagedProcess;
  readonly id: string;
  private readonly stateDir: string;

  constructor(bundle: string, id: string, stateDir: string, logPath: string) {
    this.id = id;
    this.stateDir = stateDir;
    this.process = new ManagedProcess('runc', 'runc', ['--root', stateDir, 'run', '--bundle', bundle, id], {
      logPath,
    });
  }

  logs(): LogRecord[] {
    return readLogRecords(this.process.logPath);
  }

  async waitForLog(what: string, predicate: (r: LogRecord) => boolean, timeoutMs = 60_000): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const hit = this.logs().find(predicate);
      if (hit) return hit;
      if (!this.process.running) throw new Error(`the container exited before ${what}:\n${this.process.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}:\n${this.process.tail()}`);
  }

  /** The host PID of the container's PID 1 (runc state). */
  initPid(): number {
    const state = JSON.parse(execFileSync('runc', ['--root', this.stateDir, 'state', this.id], { encoding: 'utf8' }));
    return (state as { pid: number }).pid;
  }

  /** SIGTERM to runc (forwarded to the container), SIGKILL after 30 s; resolves with the container's exit code. */
  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }

  /** Removes the container whatever its state (after a failed run runc may leave it behind). */
  remove(): void {
    try {
      execFileSync('runc', ['--root', this.stateDir, 'delete', '--force', this.id], { stdio: 'ignore' });
    } catch {
      // never created, or already gone
    }
  }
}
