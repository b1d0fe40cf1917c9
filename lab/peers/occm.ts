// The upstream OpenStack cloud-controller-manager (cloud-provider-openstack's openstack-cloud-controller-manager,
// OCCM v1.36.0, built by scripts/build-occm.sh) as a child process against the lab OpenStack: its cloud.conf in a
// file of its own (mode 0600: [Global] holds the Keystone password), the test control plane's admin kubeconfig, no
// serving port. OCCM reads its regional providerID and its wait for a load balancer from the environment, so the
// environment is given whole: nothing of this process's own leaks in.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, type ControlPlaneInfo } from '../controlplane/index.ts';
import { ManagedProcess } from '../process/index.ts';
import { upstreamCCMArgs } from './peer-ccm.ts';

export function occmBinaryPath(): string {
  return join(cacheDir(), 'bin', 'occm');
}

export interface OCCMOptions {
  info: ControlPlaneInfo;
  /** cloud.conf as OCCM reads it ([Global] auth, [LoadBalancer], [Route], ...). */
  cloudConf: string;
  /**
   * Flags beyond the provider's and the kubeconfigs (--controllers=..., --cluster-name=..., --leader-elect=false,
   * --cluster-cidr=..., --node-monitor-period=...).
   */
  args: readonly string[];
  /** OCCM's environment variables (OS_CCM_REGIONAL, OCCM_WAIT_LB_ACTIVE_STEPS, ...). */
  env?: Readonly<Record<string, string>>;
}

export class OCCM {
  readonly process: ManagedProcess;
  readonly dir: string;

  constructor(options: OCCMOptions) {
    const path = occmBinaryPath();
    if (!existsSync(path)) {
      throw new Error(`the upstream OpenStack CCM is not built: expected ${path}. Run 'npm run build:occm'.`);
    }
    this.dir = mkdtempSync(join(options.info.dir, 'occm-'));
    const config = join(this.dir, 'cloud.conf');
    writeFileSync(config, options.cloudConf, { mode: 0o600 });
    this.process = new ManagedProcess(
      'occm',
      path,
      ['--cloud-provider=openstack', `--cloud-config=${config}`, ...upstreamCCMArgs(options.info), ...options.args],
      {
        logPath: join(this.dir, 'occm.log'),
        env: { PATH: process.env.PATH, HOME: this.dir, ...options.env },
      },
    );
  }

  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }
}
