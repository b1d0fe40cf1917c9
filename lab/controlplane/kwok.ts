// kwok simulates kubelets: nodes annotated kwok.x-k8s.io/node=fake are turned Ready and kept heartbeating.
import { join } from 'node:path';
import { binaryPath, kwokStagesDir } from './binaries.ts';
import { ManagedProcess } from '../process/index.ts';

export const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_ANNOTATION_VALUE = 'fake';

const DEFAULT_STAGES = ['fast/node-initialize.yaml', 'heartbeat-with-lease/node-heartbeat-with-lease.yaml'];

export interface KwokOptions {
  kubeconfigPath: string;
  /** Directory for kwok's log file. */
  logDir: string;
  /** Stage files relative to kwok's stage directory (default: initialize + heartbeat with lease). */
  stages?: string[];
  /** CIDR kwok assigns node/pod IPs from. */
  cidr?: string;
}

export function startKwok(options: KwokOptions): ManagedProcess {
  const stages = (options.stages ?? DEFAULT_STAGES).map((s) => `--config=${join(kwokStagesDir(), 'node', s)}`);
  return new ManagedProcess(
    'kwok',
    binaryPath('kwok'),
    [
      `--kubeconfig=${options.kubeconfigPath}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=${KWOK_ANNOTATION_VALUE}`,
      `--cidr=${options.cidr ?? '10.0.0.0/16'}`,
      ...stages,
    ],
    // kwok reads ~/.kwok/kwok.yaml when present: point HOME elsewhere so a developer's own file cannot leak in.
    { logPath: join(options.logDir, 'kwok.log'), env: { ...process.env, HOME: options.logDir } },
  );
}
