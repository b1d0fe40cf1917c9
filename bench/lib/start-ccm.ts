// Starts one of the two CCMs the comparison benchmarks measure, on a given control plane and cloud, with the same
// flags: on devcloud the upstream CCM (lab/peers/devcloud-go) or wasm-ccm with the devcloud plugin; on moto
// cloud-provider-aws's CCM (lab/peers/aws-go) or wasm-ccm with the AWS plugin (operator RBAC aside: admin token).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Devcloud } from '../../devcloud/src/index.ts';
import { CCMProcess, IMAGE_ENV, imageEnvProblem, devcloudPluginArgs } from '../../lab/ccm/index.ts';
import type { ControlPlaneInfo } from '../../lab/controlplane/index.ts';
import { type AwsEnv, AwsPeerCCM, awsPluginArgs, PeerCCM } from '../../lab/peers/index.ts';

export type Impl = 'wasm_ccm' | 'upstream';

/**
 * The flags every comparison benchmark gives both CCMs: no leader election, the controllers that have work in them
 * (no routes), and the client limits and service syncs (defaults: bench:compare's).
 */
export function benchFlags({ qps = 200, burst = 400, serviceSyncs = 10 } = {}): string[] {
  return [
    '--leader-elect=false',
    '--controllers=cloud-node,cloud-node-lifecycle,service',
    `--kube-api-qps=${qps}`,
    `--kube-api-burst=${burst}`,
    `--concurrent-service-syncs=${serviceSyncs}`,
  ];
}

export interface StartedCCM {
  pid: number;
  /** The process's log, inside the control plane's directory (gone when the control plane stops). */
  logPath: string;
  stop(): Promise<number | null>;
}

/**
 * Copies `ccm`'s log out of the control plane's directory, which is removed when the control plane stops, and
 * returns where: a run that failed keeps what the CCM said.
 */
export function keepLogOf(ccm: StartedCCM, label: string): string {
  const kept = join(tmpdir(), `wasm-ccm-bench-${label}-${Date.now()}.log`);
  copyFileSync(ccm.logPath, kept);
  return kept;
}

export interface StartCCMOptions {
  info: ControlPlaneInfo;
  cloud: Devcloud;
  flags: string[];
  /** Names the plugin config's directory (wasm-ccm only). */
  name: string;
  /** wasm-ccm only: the script (default: the .ts sources) and options for its Node. */
  main?: string;
  nodeArgs?: string[];
  /** wasm-ccm only: environment variables added for its process (default the image's, IMAGE_ENV). */
  env?: Readonly<Record<string, string>>;
}

/** Resolves once the process runs; wasm-ccm also once its controllers started (the peer logs no such line). */
export async function startCCM(impl: Impl, o: StartCCMOptions): Promise<StartedCCM> {
  if (impl === 'upstream') {
    const peer = new PeerCCM({ info: o.info, cloud: o.cloud, args: o.flags });
    return { pid: pidOf(peer.process.pid, impl), logPath: peer.process.logPath, stop: () => peer.stop() };
  }
  return startWasmCCM(o, [...devcloudPluginArgs(o.info.dir, o.cloud, o.name), ...o.flags]);
}

export interface StartAwsCCMOptions extends Omit<StartCCMOptions, 'cloud' | 'name'> {
  /** moto seeded for the cluster `cluster` (lab/peers/aws-env.ts). */
  aws: AwsEnv;
  /** A subnet of the cluster's VPC (upstream needs one to start without an instance of its own). */
  subnetID: string;
  /** A front before moto on this loopback port that both CCMs send every request to (default: moto itself). */
  frontPort?: number;
}

/** startCCM on moto: cloud-provider-aws's CCM, or wasm-ccm with plugins/aws, for the cluster aws.cluster. */
export async function startAwsCCM(impl: Impl, o: StartAwsCCMOptions): Promise<StartedCCM> {
  const cluster = `--cluster-name=${o.aws.cluster}`;
  if (impl === 'upstream') {
    const peer = new AwsPeerCCM({
      info: o.info,
      moto: o.aws.moto,
      vpcID: o.aws.seeded.vpcId,
      subnetID: o.subnetID,
      clusterID: o.aws.cluster,
      args: [...o.flags, cluster, '--configure-cloud-routes=false'],
      ...(o.frontPort === undefined ? {} : { endpoint: `http://127.0.0.1:${o.frontPort}` }),
    });
    return { pid: pidOf(peer.process.pid, impl), logPath: peer.process.logPath, stop: () => peer.stop() };
  }
  const pluginArgs = o.frontPort === undefined ? awsPluginArgs(o.aws) : awsPluginArgsAt(o.aws, o.frontPort);
  return startWasmCCM(o, [...pluginArgs, cluster, ...o.flags]);
}

/** awsPluginArgs with moto's port replaced by `port` in the cloud config, the credentials' hosts and the allow-list. */
function awsPluginArgsAt(aws: AwsEnv, port: number): string[] {
  const motoPort = new URL(aws.moto.endpoint).port;
  const at = (text: string): string =>
    text
      .replaceAll(`127.0.0.1:${motoPort}`, `127.0.0.1:${port}`)
      .replaceAll(`localhost:${motoPort}`, `localhost:${port}`);
  // Beside the originals: the credentials file names its key files relative to its own directory.
  const cloudConfig = join(aws.dir, `cloud-${port}.conf`);
  const credentials = join(aws.dir, `credentials-${port}.json`);
  writeFileSync(cloudConfig, at(readFileSync(aws.cloudConfigFile, 'utf8')));
  writeFileSync(credentials, at(readFileSync(aws.credentialsFile, 'utf8')));
  return awsPluginArgs(aws).map((arg) => {
    if (arg.startsWith('--cloud-config=')) return `--cloud-config=${cloudConfig}`;
    if (arg.startsWith('--plugin-credentials=')) return `--plugin-credentials=${credentials}`;
    return arg.startsWith('--plugin-allowed-hosts=') ? at(arg) : arg;
  });
}

async function startWasmCCM(o: Omit<StartCCMOptions, 'cloud' | 'name'>, args: string[]): Promise<StartedCCM> {
  // The image's environment (jemalloc preloaded), unless the caller gives its own: refuse to measure without it.
  if (o.env === undefined) {
    const problem = imageEnvProblem();
    if (problem) throw new Error(`wasm-ccm: ${problem}`);
  }
  const proc = new CCMProcess({
    info: o.info,
    token: o.info.adminToken,
    args,
    ...(o.main ? { main: o.main } : {}),
    nodeArgs: o.nodeArgs ?? [],
    env: o.env ?? IMAGE_ENV,
  });
  const started = {
    pid: pidOf(proc.process.pid, 'wasm_ccm'),
    logPath: proc.process.logPath,
    stop: () => proc.stop(),
  };
  try {
    await proc.ready(60_000);
  } catch (err) {
    await proc.stop().catch(() => undefined);
    throw err;
  }
  return started;
}

function pidOf(pid: number | undefined, impl: Impl): number {
  if (pid === undefined) throw new Error(`${impl}: no pid`);
  return pid;
}
