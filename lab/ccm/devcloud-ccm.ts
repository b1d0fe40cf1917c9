// The whole system for service/route end-to-end tests and benchmarks: a devcloud, wasm-ccm as a real child process
// running the devcloud plugin (cloud config, brokered token and allow-list from the issue-5 helper) with the RBAC of
// manifests/rbac.yaml, and Nodes registered the way a kubelet with --provider-id does, each with its instance.
import { readFile } from 'node:fs/promises';
import { CoreV1Api, type KubeConfig, type V1Node, type V1Taint } from '@kubernetes/client-node';
import { type Devcloud, type DevcloudOptions, type Instance, startDevcloud } from '../../devcloud/src/index.ts';
import { devcloudPluginArgs } from './ccm-env.ts';
import { CCMProcess } from './ccm-process.ts';
import {
  type ControlPlaneInfo,
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../controlplane/index.ts';

export interface DevcloudCCMOptions {
  info: ControlPlaneInfo;
  /** Names the config and credential files (several environments may share the control plane's directory). */
  tag: string;
  /** CCM flags beyond the plugin's (e.g. --controllers=service, --cluster-cidr=...). */
  args: readonly string[];
  devcloud?: DevcloudOptions;
  /** Start the CCM at once (default true); false leaves that to startCCM(), e.g. after seeding. */
  startCCM?: boolean;
  /** Wait for the controllers to start (default true). */
  waitReady?: boolean;
  readyTimeoutMs?: number;
}

export interface SeedNodeOptions {
  labels?: Record<string, string>;
  podCIDRs?: readonly string[];
  taints?: V1Taint[];
  /** false: register without spec.providerID (the plugin then finds the instance by node name). Default true. */
  providerID?: boolean;
  /** Instance labels in devcloud. */
  instanceLabels?: Record<string, string>;
}

export class DevcloudCCM {
  readonly info: ControlPlaneInfo;
  readonly cloud: Devcloud;
  readonly admin: KubeConfig;
  readonly core: CoreV1Api;
  /** The running CCM (replaced by restartCCM); undefined while stopped. */
  ccm: CCMProcess | undefined;
  private readonly args: string[];
  private readonly token: string;
  private readonly nodes = new Set<string>();

  private constructor(info: ControlPlaneInfo, cloud: Devcloud, token: string, args: string[]) {
    this.info = info;
    this.cloud = cloud;
    this.admin = adminKubeConfig(info);
    this.core = this.admin.makeApiClient(CoreV1Api);
    this.token = token;
    this.args = args;
  }

  /** Starts devcloud, applies the operator RBAC, and starts the CCM as the ServiceAccount it grants. */
  static async start(options: DevcloudCCMOptions): Promise<DevcloudCCM> {
    const admin = adminKubeConfig(options.info);
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(options.info, admin);
    const cloud = await startDevcloud(options.devcloud);
    const args = [...devcloudPluginArgs(options.info.dir, cloud, options.tag), ...options.args];
    const env = new DevcloudCCM(options.info, cloud, token, args);
    try {
      if (options.startCCM ?? true) {
        await env.startCCM({ waitReady: options.waitReady, readyTimeoutMs: options.readyTimeoutMs });
      }
    } catch (err) {
      await env.stop().catch(() => undefined);
      throw err;
    }
    return env;
  }

  /** Starts a CCM (after stopCCM); resolves once its controllers run unless waitReady is false. */
  async startCCM(options: { waitReady?: boolean; readyTimeoutMs?: number } = {}): Promise<CCMProcess> {
    if (this.ccm?.process.running) throw new Error('the CCM is already running');
    const ccm = new CCMProcess({ info: this.info, token: this.token, args: this.args });
    this.ccm = ccm;
    if (options.waitReady ?? true) await ccm.ready(options.readyTimeoutMs ?? 60_000);
    return ccm;
  }

  /** SIGTERM and wait: the CCM releases its lease and exits; resolves with its exit code. */
  async stopCCM(): Promise<number | null> {
    const ccm = this.ccm;
    this.ccm = undefined;
    return ccm ? ccm.stop() : null;
  }

  /** The CCM's resident set size in MiB (VmRSS of /proc/<pid>/status), or undefined when not running. */
  async ccmRssMiB(): Promise<number | undefined> {
    const pid = this.ccm?.process.pid;
    if (pid === undefined || !this.ccm?.process.running) return undefined;
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  }

  /**
   * A devcloud instance and its Node, registered as a kubelet with --provider-id=devcloud://<id> does (already
   * initialized: no uninitialized taint), with spec.podCIDRs when given (as the node IPAM controller assigns them).
   */
  async seedNode(name: string, options: SeedNodeOptions = {}): Promise<{ node: V1Node; instance: Instance }> {
    const instance = this.cloud.addInstance({ name, labels: options.instanceLabels });
    const podCIDRs = options.podCIDRs ? [...options.podCIDRs] : undefined;
    this.nodes.add(name);
    const node = await this.core.createNode({
      body: {
        metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...options.labels } },
        spec: {
          ...((options.providerID ?? true) ? { providerID: `devcloud://${instance.id}` } : {}),
          ...(podCIDRs ? { podCIDR: podCIDRs[0], podCIDRs } : {}),
          ...(options.taints ? { taints: options.taints } : {}),
        },
        status: { addresses: instance.addresses.map((a) => ({ type: a.type, address: a.address })) },
      },
    });
    return { node, instance };
  }

  /** Deletes Nodes this environment created (and ignores those already gone). */
  async deleteNodes(names: Iterable<string> = this.nodes): Promise<void> {
    const all = [...names];
    await Promise.allSettled(all.map((name) => this.core.deleteNode({ name })));
    for (const name of all) this.nodes.delete(name);
  }

  /** Stops the CCM, deletes the seeded Nodes and stops devcloud. Resolves with the CCM's exit code. */
  async stop(): Promise<number | null> {
    const code = await this.stopCCM();
    await this.deleteNodes();
    await this.cloud.stop();
    return code;
  }
}
