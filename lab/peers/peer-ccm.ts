// The upstream cloud-controller-manager peer (k8s.io/cloud-provider with the test-only Go devcloud provider of
// lab/peers/devcloud-go, built by scripts/build-peer.sh) as a child process, started with the flags that match wasm-ccm's.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Devcloud } from '../../devcloud/src/index.ts';
import { cacheDir, type ControlPlaneInfo } from '../controlplane/index.ts';
import { ManagedProcess } from '../process/index.ts';

export function peerBinaryPath(): string {
  return join(cacheDir(), 'bin', 'upstream-ccm');
}

/** Whether scripts/build-peer.sh has built the peer. */
export function peerBuilt(): boolean {
  return existsSync(peerBinaryPath());
}

/** What an upstream CCM binary is started with here: the admin kubeconfig for everything, no serving port. */
export function upstreamCCMArgs(info: ControlPlaneInfo): string[] {
  const kubeconfig = info.kubeconfigPath;
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--secure-port=0',
    '--use-service-account-credentials=false',
  ];
}

export interface PeerCCMOptions {
  info: ControlPlaneInfo;
  cloud: Devcloud;
  /** Flags beyond the cloud provider's (e.g. --cluster-cidr=..., --node-monitor-period=1s). */
  args: readonly string[];
}

export class PeerCCM {
  readonly process: ManagedProcess;
  readonly dir: string;

  constructor(options: PeerCCMOptions) {
    const path = peerBinaryPath();
    if (!existsSync(path))
      throw new Error(`the upstream CCM peer is not built: expected ${path}. Run 'npm run build:peer'.`);
    this.dir = mkdtempSync(join(options.info.dir, 'peer-'));
    const config = join(this.dir, 'devcloud.json');
    writeFileSync(config, JSON.stringify({ url: options.cloud.url, region: 'dc-east-1' }));
    const token = join(this.dir, 'token');
    writeFileSync(token, options.cloud.token, { mode: 0o600 });
    this.process = new ManagedProcess(
      'upstream-ccm',
      path,
      ['--cloud-provider=devcloud', `--cloud-config=${config}`, ...upstreamCCMArgs(options.info), ...options.args],
      { logPath: join(this.dir, 'upstream-ccm.log'), env: { ...process.env, DEVCLOUD_TOKEN_FILE: token } },
    );
  }

  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }
}
