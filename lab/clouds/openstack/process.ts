// The lab OpenStack's processes: each service runs in a process group of its own with its output in a log file.
// Every process of a stack is marked twice, so that stopping it, or reaping what a killed test run left behind,
// finds them all by reading /proc: its environment names the stack (inherited by everything it starts, daemons
// that leave the process group included), and it works in the stack's run directory (the mark that survives the
// services that rewrite their environment's memory to retitle themselves, as oslo.service's do).
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../process/index.ts';

/** The environment variable that marks a process as part of one running stack; its value is the stack's id. */
export const STACK_MARKER = 'WASM_CCM_OPENSTACK_RUN';
const RUN_DIR_PREFIX = 'wasm-ccm-openstack-';

/** The run directory of the stack `runId`: every process of the stack starts there. */
export function runRootOf(runId: string): string {
  return join(realpathSync(tmpdir()), `${RUN_DIR_PREFIX}${runId}`);
}

/** The owner's pid leads a stack's id (`<pid>-<random>`): a dead owner means a stale stack. */
function ownerOf(runId: string): number {
  return Number(runId.split('-')[0]);
}

const TAIL_BYTES = 6000;

export interface ServiceOptions {
  logPath: string;
  /** Must name the stack (STACK_MARKER). */
  env: NodeJS.ProcessEnv;
  /** Default: the stack's run directory. Elsewhere, the process is found by its environment only. */
  cwd?: string;
}

export class ServiceProcess {
  readonly name: string;
  readonly logPath: string;
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  #exitStatus: number | null | undefined;

  constructor(name: string, command: string, args: readonly string[], options: ServiceOptions) {
    this.name = name;
    this.logPath = options.logPath;
    const runId = options.env[STACK_MARKER];
    if (runId === undefined) throw new Error(`${name}: the environment does not name its stack (${STACK_MARKER})`);
    const log = openSync(options.logPath, 'a');
    try {
      this.#child = spawn(command, args, {
        cwd: options.cwd ?? runRootOf(runId),
        env: options.env,
        detached: true, // its own process group, so stop() reaches the children it forks
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.#child.on('error', (err) => {
        appendFileSync(options.logPath, `spawn ${command} failed: ${err.message}\n`);
        this.#exitStatus = null;
        resolve(null);
      });
      this.#child.on('exit', (code, signal) => {
        this.#exitStatus = code ?? (signal ? null : 0);
        resolve(this.#exitStatus);
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#exitStatus === undefined;
  }

  /** The exit code once exited (null: killed by a signal), undefined while running. */
  get exitStatus(): number | null | undefined {
    return this.#exitStatus;
  }

  /** The end of the service's log, for error messages. */
  tail(): string {
    return logTail(this.logPath);
  }

  /** SIGTERM to the process group, then SIGKILL to the group if the leader has not exited within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    const pid = this.#child.pid;
    if (pid === undefined || !this.running) return;
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // Workers that outlive their leader (a gunicorn worker mid-request, a privsep helper) go with the group.
    signalGroup(pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** The last few kilobytes of a log file as text ('' when it cannot be read). */
export function logTail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-TAIL_BYTES);
  } catch {
    return '';
  }
}

/** The value of `name` in the environment a process started with (undefined when unreadable or absent). */
function environValue(pid: number, name: string): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
  const prefix = `${name}=`;
  return environ
    .split('\0')
    .find((entry) => entry.startsWith(prefix))
    ?.slice(prefix.length);
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

/** The stack a process belongs to, by its environment or else by its working directory. */
function stackOf(pid: number, runDirs: string): string | undefined {
  const marked = environValue(pid, STACK_MARKER);
  if (marked !== undefined) return marked;
  let cwd: string;
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
  if (!cwd.startsWith(join(runDirs, RUN_DIR_PREFIX))) return undefined;
  const runId = cwd.slice(runDirs.length + 1 + RUN_DIR_PREFIX.length).split('/')[0] ?? '';
  // Other tools' directories may share the prefix: only a stack's id (`<pid>-<8 hex>`) names a stack.
  return /^\d+-[0-9a-f]{8}$/.test(runId) ? runId : undefined;
}

function isZombie(pid: number): boolean {
  try {
    // The state follows the parenthesized command name, which may itself contain spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** Every live process of every stack, by stack id. */
function stacks(): Map<string, number[]> {
  const runDirs = realpathSync(tmpdir());
  const byStack = new Map<string, number[]>();
  for (const pid of livePids()) {
    const runId = stackOf(pid, runDirs);
    if (runId === undefined || isZombie(pid)) continue;
    byStack.set(runId, [...(byStack.get(runId) ?? []), pid]);
  }
  return byStack;
}

/** Every live process of the stack `runId`. */
export function stackPids(runId: string): number[] {
  return stacks().get(runId) ?? [];
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Exited meanwhile.
    }
  }
}

/** SIGKILLs every process of the stack `runId`; returns how many there were. */
export function killStack(runId: string): number {
  const pids = stackPids(runId);
  killAll(pids);
  return pids.length;
}

/** Kills the processes of stacks whose owner has died (a test run killed too hard to clean up); returns their ids. */
export function reapOrphanStacks(): string[] {
  const orphans: string[] = [];
  for (const [runId, pids] of stacks()) {
    const owner = ownerOf(runId);
    if (owner > 0 && !processAlive(owner)) {
      killAll(pids);
      orphans.push(runId);
    }
  }
  return orphans;
}

/** Runs a command to completion with its output appended to `logPath`; throws with the log's tail on failure. */
export async function runStep(
  name: string,
  command: string,
  args: readonly string[],
  options: ServiceOptions & { timeoutMs?: number },
): Promise<void> {
  const step = new ServiceProcess(name, command, args, options);
  const timeoutMs = options.timeoutMs ?? 600_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const result = await Promise.race([step.exited, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    await step.stop(1000);
    throw new Error(`${name} did not finish within ${timeoutMs} ms; log ${options.logPath}:\n${step.tail()}`);
  }
  if (result !== 0) {
    throw new Error(`${name} failed (exit ${String(result)}); log ${options.logPath}:\n${step.tail()}`);
  }
}
