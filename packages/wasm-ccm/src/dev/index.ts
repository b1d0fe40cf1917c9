// `wasm-ccm dev`: a vendor's provider running in a local cluster in one command (the flags in options.ts). The
// repository's `npm run demo` is the same session with devcloud and its provider (demo/main.ts).
import { readFileSync } from 'node:fs';
import type { V1Node } from '@kubernetes/client-node';
import { loadFixtureText } from '../../../../host/src/conformance/index.ts';
import { errorMessage } from '../../../../host/src/util/error-message.ts';
import { loadTestPlugin } from '../testing/index.ts';
import { DevCluster } from './cluster.ts';
import { ensureControlPlaneBinaries } from './layout.ts';
import { DEV_USAGE, type DevOptions, DevUsageError, parseDevArgs } from './options.ts';
import { watchModule } from './watch.ts';

export { DEV_USAGE, type DevOptions, parseDevArgs } from './options.ts';

const INITIALIZE_TIMEOUT_MS = 90_000;

export interface DevSession {
  readonly cluster: DevCluster;
  /** The fixture's running nodes as wasm-ccm initialized them. */
  readonly nodes: V1Node[];
  /** Stops watching, every process, and removes every file. Safe to call twice. */
  stop(): Promise<void>;
}

function readInput(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new DevUsageError(`cannot read ${what} ${path}: ${errorMessage(err)}`);
  }
}

/** The provider as its module describes itself; the module is loaded as the CCM would load it. */
async function describeProvider(
  module: Uint8Array,
  options: DevOptions,
  cloudConfig: string,
): Promise<{ providerName: string; version: string }> {
  const plugin = await loadTestPlugin(module, {
    cloudConfig,
    allowedHosts: options.allowedHosts,
    ...(options.credentials === undefined ? {} : { credentialsFile: options.credentials }),
  });
  await plugin.close();
  return plugin.description;
}

/**
 * Starts the cluster and waits until wasm-ccm initialized every running node of the fixture. `cleanUp` registers
 * the session's stop before anything runs, so an interrupt during start-up removes what was started so far.
 */
export async function startDev(
  options: DevOptions,
  say: (line: string) => void,
  cleanUp: (stop: () => Promise<void>) => void,
): Promise<DevSession> {
  const fixture = await loadFixtureText(readInput(options.fixture, 'fixture'), options.fixture).catch((err) => {
    throw new DevUsageError(errorMessage(err));
  });
  const cloudConfig = options.cloudConfig === undefined ? '' : readInput(options.cloudConfig, 'cloud config');
  let module: Uint8Array;
  try {
    module = new Uint8Array(readFileSync(options.plugin));
  } catch (err) {
    throw new DevUsageError(`cannot read plugin ${options.plugin}: ${errorMessage(err)}`);
  }
  const { providerName: name, version } = await describeProvider(module, options, cloudConfig);
  const nodeNames = fixture.running.map((n) => n.name).join(', ');
  say(`provider ${name} ${version} from ${options.plugin}; nodes of ${options.fixture}: ${nodeNames}`);
  ensureControlPlaneBinaries(say);
  const cluster = new DevCluster({
    providerName: name,
    clusterName: fixture.clusterName,
    module,
    nodes: fixture.running,
    cloudConfig: options.cloudConfig,
    credentials: options.credentials,
    allowedHosts: options.allowedHosts,
  });
  let unwatch = (): void => {};
  const stop = async (): Promise<void> => {
    unwatch();
    await cluster.stop();
  };
  cleanUp(stop);
  await cluster.start(say);
  const nodes = await cluster.initializedNodes(INITIALIZE_TIMEOUT_MS);
  for (const node of nodes) {
    const labels = node.metadata?.labels ?? {};
    const zone = labels['topology.kubernetes.io/zone'] ?? '(no zone)';
    const type = labels['node.kubernetes.io/instance-type'] ?? '(no instance type)';
    say(`node ${node.metadata?.name} initialized: ${node.spec?.providerID}, ${type}, zone ${zone}`);
  }
  if (options.watch) {
    unwatch = watchModule(options.plugin, module, cluster, say);
    say(`watching ${options.plugin}: rebuild it (npm run build) and wasm-ccm swaps it in`);
  }
  return { cluster, nodes, stop };
}

/** What to try, printed once the cluster runs. */
export function tryLines(cluster: DevCluster): string[] {
  return [
    `kubeconfig: ${cluster.kubeconfigPath}`,
    'try:',
    `  export KUBECONFIG=${cluster.kubeconfigPath}`,
    '  kubectl get nodes -o wide -L topology.kubernetes.io/zone,node.kubernetes.io/instance-type',
    '  kubectl create service loadbalancer web --tcp=80:8080 && kubectl get service web --watch',
    `  kubectl -n ${cluster.configMap.namespace} get configmap ${cluster.configMap.name}`,
    `  tail -f ${cluster.ccmLogPath}`,
    'Ctrl-C stops everything and removes every file it made.',
  ];
}

/** `wasm-ccm dev <args>`: runs until SIGINT or SIGTERM; resolves to the exit status. */
export async function devMain(args: readonly string[]): Promise<number> {
  const say = (line: string): void => void process.stdout.write(`wasm-ccm dev: ${line}\n`);
  let stopSession: (() => Promise<void>) | undefined;
  let interrupt = (): void => {};
  const interrupted = new Promise<string>((resolve) => {
    interrupt = () => resolve('interrupted');
    // Kept (not once): lab/process's exit hook re-raises a signal that no other listener handles, which would end
    // this process before the session is stopped.
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', interrupt);
  });
  try {
    const options = parseDevArgs(args);
    if (options === 'help') {
      process.stdout.write(`${DEV_USAGE}\n`);
      return 0;
    }
    const started = startDev(options, say, (stop) => (stopSession = stop));
    const first = await Promise.race([started, interrupted]);
    if (typeof first === 'string') return 0;
    for (const line of tryLines(first.cluster)) say(line);
    await interrupted;
    return 0;
  } catch (err) {
    process.stderr.write(`wasm-ccm dev: ${errorMessage(err)}\n`);
    if (err instanceof DevUsageError) {
      process.stderr.write('Run with --help for usage.\n');
      return 2;
    }
    return 1;
  } finally {
    if (stopSession) {
      say('stopping wasm-ccm, kwok and the control plane');
      await stopSession();
      say('stopped; every process and temporary folder of this session is gone');
    }
  }
}
