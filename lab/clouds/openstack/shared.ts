// One lab OpenStack for a whole test run instead of one per test file: starting a stack takes 1-3 minutes of both
// cores, stopping it 10 s, and each file works in projects of its own anyway. The first file that asks starts a
// supervisor process (shared-main.ts), detached so that it outlives that file's worker; every later file of the run
// finds the stack it announced. The supervisor stops the stack when the run's owner (the process that runs the test
// files, e.g. vitest's main process) says so (stopSharedOpenStack in its teardown) or exits without saying so.
//
//   const stack = await sharedOpenStack(ownerPid);          // in a test file: the run's stack, started if need be
//   await stopSharedOpenStack(ownerPid);                     // in the run's teardown
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../process/index.ts';
import { type Credentials, OpenStackClient } from './api.ts';
import type { Ports } from './config.ts';
import type { LabResources } from './resources.ts';

/** What a stack offers its users, whoever started it (the part of OpenStack that survives a trip through JSON). */
export interface LabOpenStack {
  /** Keystone's v3 root, `http://127.0.0.1:<port>/v3`. */
  authUrl: string;
  region: string;
  admin: Credentials;
  ports: Ports;
  /** The flavor, image and networks the state holds. */
  resources: LabResources;
  runId: string;
  /** Configs and logs of this run (`log/<service>.log`). */
  runDir: string;
  adminClient(): OpenStackClient;
}

/** The JSON the supervisor writes once its stack serves. */
export type SharedStackInfo = Omit<LabOpenStack, 'adminClient'> & { supervisorPid: number };

/** The directory where the supervisor of `ownerPid`'s stack keeps its files. */
export function sharedStackDir(ownerPid: number): string {
  return join(tmpdir(), `wasm-ccm-openstack-shared-${ownerPid}`);
}

export const SHARED_FILES = {
  lock: 'lock',
  info: 'info.json',
  error: 'error.txt',
  stop: 'stop',
  log: 'supervisor.log',
} as const;

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '(no log)';
}

/**
 * The lab OpenStack of the run `ownerPid` owns: started by a supervisor process on the first call (initializing the
 * cached state first on a cold machine: minutes), found on the later ones. Rejects with the supervisor's error or
 * log when it could not start one.
 */
export async function sharedOpenStack(ownerPid: number, timeoutMs = 20 * 60_000): Promise<LabOpenStack> {
  const dir = sharedStackDir(ownerPid);
  mkdirSync(dir, { recursive: true });
  const file = (name: keyof typeof SHARED_FILES): string => join(dir, SHARED_FILES[name]);
  let first = false;
  try {
    closeSync(openSync(file('lock'), 'wx'));
    first = true;
  } catch {
    // Another file of the run started the supervisor already.
  }
  if (first) {
    const log = openSync(file('log'), 'a');
    const child = spawn(process.execPath, [join(import.meta.dirname, 'shared-main.ts'), String(ownerPid), dir], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.unref();
    closeSync(log);
    writeFileSync(join(dir, 'supervisor.pid'), String(child.pid));
  }
  const info = await waitForInfo(dir, timeoutMs);
  if (!processAlive(info.supervisorPid)) throw new SharedStackError(`the supervisor is gone:\n${tail(file('log'))}`);
  const { supervisorPid: _pid, ...stack } = info;
  return { ...stack, adminClient: () => new OpenStackClient(stack.admin) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The supervisor's info once written; its error, or its log when it died without one, as a SharedStackError. */
async function waitForInfo(dir: string, timeoutMs: number): Promise<SharedStackInfo> {
  const file = (name: keyof typeof SHARED_FILES): string => join(dir, SHARED_FILES[name]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(file('info'))) return JSON.parse(readFileSync(file('info'), 'utf8')) as SharedStackInfo;
    if (existsSync(file('error'))) throw new SharedStackError(readFileSync(file('error'), 'utf8'));
    const pidFile = join(dir, 'supervisor.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
    if (pid > 0 && !processAlive(pid)) throw new SharedStackError(`the supervisor exited:\n${tail(file('log'))}`);
    if (Date.now() > deadline) throw new SharedStackError(`no shared lab OpenStack after ${timeoutMs} ms`);
    await sleep(500);
  }
}

export class SharedStackError extends Error {
  override name = 'SharedStackError';
}

/** Has the supervisor of `ownerPid`'s stack stop it, and waits for that; nothing to do when none was started. */
export async function stopSharedOpenStack(ownerPid: number, timeoutMs = 120_000): Promise<void> {
  const dir = sharedStackDir(ownerPid);
  if (!existsSync(dir)) return;
  writeFileSync(join(dir, SHARED_FILES.stop), '');
  const pid = Number(existsSync(join(dir, 'supervisor.pid')) ? readFileSync(join(dir, 'supervisor.pid'), 'utf8') : 0);
  const deadline = Date.now() + timeoutMs;
  while (pid > 0 && processAlive(pid)) {
    if (Date.now() > deadline) throw new SharedStackError(`the shared lab OpenStack still runs after ${timeoutMs} ms`);
    await sleep(200);
  }
  rmSync(dir, { recursive: true, force: true });
}
