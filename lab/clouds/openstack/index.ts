// The lab OpenStack: real keystone, nova, neutron, octavia, placement and glance on this machine, for end-to-end
// tests. initOpenStack() fills a cached state directory once; startOpenStack() runs a stack on a copy of it, on
// free loopback ports, and stop() ends every process it started.
//
//   const stack = await startOpenStack();
//   const admin = stack.adminClient();
//   const { client } = await createTestProject(admin, 'my-suite');
//   const server = await bootServer(client, { name: 'node-1', networkId: stack.resources.shared.networkId, ... });
//   await stack.stop();
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { initOpenStack } from './init.ts';
import { layoutOf, REGION, venvDir } from './layout.ts';
import { runRootOf, stackPids } from './process.ts';
import { updateCatalog } from './resources.ts';
import { allocatePorts, netnsName, newRunId, pruneStateDirs, reapStaleStacks } from './run.ts';
import type { LabOpenStack } from './shared.ts';
import { Stack } from './stack.ts';

export { ApiError, type Credentials, issueToken, OpenStackClient, pollUntil, type Token } from './api.ts';
export { type InitResult, initOpenStack } from './init.ts';
export type { LabResources } from './resources.ts';
export * from './helpers.ts';
export * from './keystone-only.ts';
export { type LabOpenStack, SharedStackError, sharedOpenStack, stopSharedOpenStack } from './shared.ts';

const execFileP = promisify(execFile);

export interface StartOptions {
  /** Progress messages (default: none). */
  log?: (message: string) => void;
  /** Keep the run directory (configs, logs) after stop(), for a look at the logs. Default: remove it. */
  keepRunDir?: boolean;
}

export interface StartTimings {
  /** Initializing the cached state: 0 when it was there already. */
  initMs: number;
  copyMs: number;
  /** From the first process to the last service ready. */
  startMs: number;
}

export interface OpenStack extends LabOpenStack {
  timings: StartTimings;
  /** The live processes of this stack, found by the marker in their environment. */
  pids(): number[];
  /** Services that have exited since start, each with its log tail (empty while the stack is healthy). */
  failures(): string[];
  stop(): Promise<void>;
}

/** Starts the lab OpenStack (initializing its cached state first if needed); ~1 min warm on 2 cores. */
export async function startOpenStack(options: StartOptions = {}): Promise<OpenStack> {
  const log = options.log ?? (() => {});
  await reapStaleStacks();
  const init = await initOpenStack(log);
  pruneStateDirs(init.stateDir);
  const runId = newRunId();
  const runDir = runRootOf(runId);
  mkdirSync(runDir);
  const copyStarted = Date.now();
  // Each run starts from the initialized state and leaves it untouched (reflinks where the filesystem has them).
  await execFileP('cp', ['-a', '--reflink=auto', init.stateDir, join(runDir, 'data')]);
  const copyMs = Date.now() - copyStarted;
  const layout = layoutOf(join(runDir, 'data'), runDir);
  const netns = netnsName(runId);
  const stack = new Stack({ runId, layout, venv: venvDir(), ports: await allocatePorts(), netns, log });
  const stop = async (): Promise<void> => {
    await stack.stop();
    if (!options.keepRunDir) rmSync(runDir, { recursive: true, force: true });
  };
  const started = Date.now();
  try {
    await bringUp(stack);
  } catch (err) {
    await stop();
    throw err;
  }
  const startMs = Date.now() - started;
  log(`lab OpenStack up in ${startMs} ms (run ${runDir})`);
  return {
    authUrl: stack.authUrl,
    region: REGION,
    admin: stack.adminCredentials,
    ports: stack.input.ports,
    resources: init.resources,
    runId,
    runDir,
    timings: { initMs: init.ms, copyMs, startMs },
    adminClient: () => stack.adminClient(),
    pids: () => stackPids(runId),
    failures: () => stack.failures(),
    stop,
  };
}

/** Each service once what it needs at start answers: keystone before all, placement before nova-compute, ... */
async function bringUp(stack: Stack): Promise<void> {
  await Promise.all([stack.startMariaDb(), stack.startMessagingAndSwitch()]);
  await stack.startApis(['keystone']);
  await updateCatalog(stack.adminClient(), stack.apiRoots());
  await Promise.all([
    stack.startApis(['placement', 'glance', 'neutron-api', 'nova-api', 'octavia-api']),
    stack.startDaemons(['neutron-rpc-server', 'nova-conductor', 'nova-scheduler', 'octavia-worker']),
  ]);
  await stack.startDaemons(['nova-compute', 'neutron-openvswitch-agent']);
}
