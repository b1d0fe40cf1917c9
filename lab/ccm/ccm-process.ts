// Runs wasm-ccm as a real child process for end-to-end tests, with its logs (klog's JSON shape) parsed and searchable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ControlPlaneInfo, kubeconfigJSON } from '../controlplane/index.ts';
import { ManagedProcess, readJsonLines } from '../process/index.ts';

export const CCM_MAIN = join(import.meta.dirname, '..', '..', 'host', 'src', 'main.ts');
/** The compiled entry point (`npm run build`), which is what the image runs. */
export const CCM_MAIN_COMPILED = join(import.meta.dirname, '..', '..', 'dist', 'host', 'src', 'main.js');

export interface LogRecord {
  /** Derived from klog's keys (levelOf): klog's JSON records carry none. */
  level: 'error' | 'info' | 'debug';
  msg?: string;
  v?: number;
  err?: unknown;
  [field: string]: unknown;
}

/** An error record has no `v`; debug records are verbosity 2 and more; warnings are info at `v` 0, as in klog. */
function levelOf(record: Record<string, unknown>): LogRecord['level'] {
  const v = record.v;
  if (typeof v !== 'number') return 'error';
  return v >= 2 ? 'debug' : 'info';
}

/** The JSON log records of a wasm-ccm log file (other lines skipped); none while the file does not exist yet. */
export function readLogRecords(path: string): LogRecord[] {
  return readJsonLines(path).map((record) => ({ ...record, level: levelOf(record) }));
}

export interface CCMProcessOptions {
  info: ControlPlaneInfo;
  /** Token of the identity the CCM runs as (from manifests/rbac.yaml in real tests). */
  token: string;
  args: string[];
  /** Directory for the kubeconfig and the log; defaults to a new one inside the control plane's directory. */
  dir?: string;
  /** Options for Node itself, before the script (a benchmark's --cpu-prof, say). */
  nodeArgs?: string[];
  /** The script to run (default CCM_MAIN, the TypeScript sources). */
  main?: string;
  /** Environment variables added to this process's own for the CCM (the image's ENV, say). */
  env?: Readonly<Record<string, string>>;
}

export class CCMProcess {
  readonly process: ManagedProcess;
  readonly dir: string;

  constructor(options: CCMProcessOptions) {
    this.dir = options.dir ?? mkdtempSync(join(options.info.dir, 'ccm-'));
    const kubeconfig = join(this.dir, 'ccm.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigJSON(options.info.server, options.info.caPem, 'ccm', options.token));
    this.process = new ManagedProcess(
      'wasm-ccm',
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        options.main ?? CCM_MAIN,
        `--kubeconfig=${kubeconfig}`,
        '--secure-port=0',
        '--logging-format=json',
        ...options.args,
      ],
      { logPath: join(this.dir, `ccm-${Date.now()}.log`), env: { ...process.env, ...options.env } },
    );
  }

  logs(): LogRecord[] {
    return readLogRecords(this.process.logPath);
  }

  async waitForLog(what: string, predicate: (r: LogRecord) => boolean, timeoutMs = 30_000): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const hit = this.logs().find(predicate);
      if (hit) return hit;
      if (!this.process.running) throw new Error(`wasm-ccm exited before ${what}:\n${this.process.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}:\n${this.process.tail()}`);
  }

  /** Waits until controllers run (caches synced). */
  ready(timeoutMs = 30_000): Promise<LogRecord> {
    return this.waitForLog('controllers to start', (r) => r.msg === 'caches synced; starting controllers', timeoutMs);
  }

  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }
}
