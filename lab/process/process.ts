// A child process the test harness owns: output goes to a log file (and a short in-memory tail for error
// messages), and every live process is killed when this process exits or is interrupted, so a failed or
// aborted test run never leaves an etcd or apiserver behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const TAIL_LINES = 40;
const live = new Set<ManagedProcess>();

export interface StartOptions {
  logPath: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export class ManagedProcess {
  readonly name: string;
  readonly logPath: string;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly tailLines: string[] = [];
  private exitCode: number | null | undefined;

  constructor(name: string, command: string, args: readonly string[], options: StartOptions) {
    this.name = name;
    this.logPath = options.logPath;
    const log = createWriteStream(options.logPath, { flags: 'a' });
    this.child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer): void => {
      log.write(chunk);
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.tailLines.push(line);
        if (this.tailLines.length > TAIL_LINES) this.tailLines.shift();
      }
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.tailLines.push(`spawn failed: ${err.message}`);
        this.exitCode = null;
        live.delete(this);
        log.end();
        resolve(null);
      });
      this.child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : 0);
        live.delete(this);
        log.end();
        resolve(this.exitCode);
      });
    });
    live.add(this);
    installExitHooks();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The exit code once exited (null: killed by a signal), undefined while running. */
  get exitStatus(): number | null | undefined {
    return this.exitCode;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The last lines the process printed, for error messages. */
  tail(): string {
    return this.tailLines.join('\n');
  }

  /** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Sends `signal` (SIGSTOP and SIGCONT to pause and resume, say) if the process still runs. */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  killNow(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

const cleanups = new Set<() => void>();

/** Registers synchronous cleanup (removing temp directories) to run when the process exits or is interrupted. */
export function onProcessExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  installExitHooks();
  return () => cleanups.delete(cleanup);
}

function cleanupNow(): void {
  for (const p of live) p.killNow();
  for (const c of cleanups) {
    try {
      c();
    } catch {
      // Best effort: we are exiting.
    }
  }
  cleanups.clear();
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', cleanupNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      cleanupNow();
      // If nobody else handles the signal, restore the default behaviour (terminate) by re-raising it.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
}
