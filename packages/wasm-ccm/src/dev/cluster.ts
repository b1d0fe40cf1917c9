// The local cluster of `wasm-ccm dev`: a control plane, kwok Nodes for the fixture's running nodes, the RBAC of
// manifests/, the module in a ConfigMap and wasm-ccm serving it. Everything it starts is stopped by stop(), and
// everything it writes is under two temporary folders stop() removes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import type { Node as FixtureNode } from '../../../../host/src/abi/index.ts';
import {
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  ControlPlane,
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  kubeconfigJSON,
  loadManifests,
  PLUGIN_NAMESPACE,
  putPluginConfigMap,
  startKwok,
} from '../../../../lab/controlplane/index.ts';
import { eventually, ManagedProcess, onProcessExit } from '../../../../lab/process/index.ts';
import { ccmMain, packageRoot } from './layout.ts';

export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';

export interface ClusterSpec {
  providerName: string;
  clusterName: string;
  module: Uint8Array;
  nodes: readonly FixtureNode[];
  cloudConfig: string | undefined;
  credentials: string | undefined;
  allowedHosts: readonly string[];
}

export interface ConfigMapRef {
  namespace: string;
  name: string;
  key: string;
}

export class DevCluster {
  controlPlane?: ControlPlane;
  kwok?: ManagedProcess;
  ccm?: ManagedProcess;
  readonly dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-dev-'));
  readonly configMap: ConfigMapRef;
  readonly spec: ClusterSpec;
  private core?: CoreV1Api;
  private readonly removeExitHook: () => void;

  constructor(spec: ClusterSpec) {
    this.spec = spec;
    // Also on an exit that skips stop(): the folder holds the CCM's token.
    this.removeExitHook = onProcessExit(() => rmSync(this.dir, { recursive: true, force: true }));
    this.configMap = {
      namespace: PLUGIN_NAMESPACE,
      name: `${spec.providerName}-plugin`,
      key: `${spec.providerName}.wasm`,
    };
  }

  get kubeconfigPath(): string {
    return this.controlPlane?.info.kubeconfigPath ?? '';
  }

  get ccmLogPath(): string {
    return this.ccm?.logPath ?? '';
  }

  /** Starts the control plane, kwok, the Nodes, RBAC, the ConfigMap and the CCM, saying what each step did. */
  async start(say: (line: string) => void): Promise<void> {
    this.controlPlane = await ControlPlane.start();
    const info = this.controlPlane.info;
    say(`control plane (kube-apiserver v1.36 + etcd) at ${info.server}`);
    const admin = adminKubeConfig(info);
    this.core = admin.makeApiClient(CoreV1Api);
    this.kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: this.dir });
    for (const node of this.spec.nodes) await this.core.createNode({ body: kwokNode(node) });
    say(`kwok registered ${this.spec.nodes.map((n) => n.name).join(', ')}, tainted ${UNINITIALIZED_TAINT}`);
    await applyManifests(admin, loadManifests('rbac.yaml', join(packageRoot(), 'manifests')));
    const { token } = await ccmIdentity(info, admin);
    await this.putModule(this.spec.module);
    say(`module in ConfigMap ${this.configMap.namespace}/${this.configMap.name} (key ${this.configMap.key})`);
    this.ccm = this.startCCM(token);
    say(`wasm-ccm running as ServiceAccount kube-system/cloud-controller-manager, log: ${this.ccm.logPath}`);
  }

  async putModule(module: Uint8Array): Promise<void> {
    if (!this.core) throw new Error('the cluster is not started');
    await putPluginConfigMap(this.core, this.configMap.name, this.configMap.key, module);
  }

  /** Resolves with each fixture node once wasm-ccm initialized it; rejects when wasm-ccm exits first. */
  async initializedNodes(timeoutMs: number): Promise<V1Node[]> {
    const core = this.core;
    if (!core) throw new Error('the cluster is not started');
    const nodes: V1Node[] = [];
    for (const { name } of this.spec.nodes) {
      nodes.push(
        await eventually(
          `node ${name} initialized by wasm-ccm (its log: ${this.ccmLogPath})`,
          async () => {
            if (this.ccm && !this.ccm.running) throw new Error(`wasm-ccm exited:\n${this.ccm.tail()}`);
            const n = await core.readNode({ name });
            return n.spec?.taints?.some((t) => t.key === UNINITIALIZED_TAINT) ? undefined : n;
          },
          timeoutMs,
        ),
      );
    }
    return nodes;
  }

  /** Stops wasm-ccm, kwok and the control plane, and removes both temporary folders. Safe to call twice. */
  async stop(): Promise<void> {
    await this.ccm?.stop(10_000);
    await this.kwok?.stop();
    await this.controlPlane?.stop();
    rmSync(this.dir, { recursive: true, force: true });
    this.removeExitHook();
  }

  private startCCM(token: string): ManagedProcess {
    const info = this.controlPlane!.info;
    const kubeconfig = join(this.dir, 'ccm.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigJSON(info.server, info.caPem, 'ccm', token), { mode: 0o600 });
    const { spec } = this;
    const provider = {
      name: spec.providerName,
      source: { configMap: this.configMap },
      allowedHosts: spec.allowedHosts,
      ...(spec.credentials === undefined ? {} : { credentials: { file: resolve(spec.credentials) } }),
      ...(spec.cloudConfig === undefined ? {} : { cloudConfigFile: resolve(spec.cloudConfig) }),
    };
    const pluginConfig = join(this.dir, 'plugins.json');
    writeFileSync(pluginConfig, JSON.stringify({ providers: [provider] }, null, 2));
    return new ManagedProcess(
      'wasm-ccm',
      process.execPath,
      [
        ccmMain(),
        `--kubeconfig=${kubeconfig}`,
        `--cloud-provider=${spec.providerName}`,
        `--plugin-config=${pluginConfig}`,
        `--cluster-name=${spec.clusterName}`,
        '--configure-cloud-routes=false',
        '--secure-port=0',
        '--logging-format=json',
      ],
      { logPath: join(this.dir, 'wasm-ccm.log') },
    );
  }
}

/** A Node as a kubelet started with --cloud-provider=external registers it, managed by kwok. */
function kwokNode(node: FixtureNode): V1Node {
  return {
    metadata: {
      name: node.name,
      labels: node.labels,
      annotations: { ...node.annotations, [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE },
    },
    spec: {
      ...(node.providerID === '' ? {} : { providerID: node.providerID }),
      taints: [{ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' }],
    },
  };
}
