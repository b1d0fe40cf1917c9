// Kubernetes clients for tests, built from the plain data the global setup provides.
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlaneInfo } from './controlplane.ts';

export function kubeConfigFor(
  info: Pick<ControlPlaneInfo, 'server' | 'caPem'>,
  user: string,
  token: string,
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'test', server: info.server, caData: Buffer.from(info.caPem).toString('base64'), skipTLSVerify: false },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: 'test', user }],
    currentContext: user,
  });
  return kc;
}

export function adminKubeConfig(info: ControlPlaneInfo): KubeConfig {
  return kubeConfigFor(info, 'admin', info.adminToken);
}

/** A name unique within this test run, so tests sharing one control plane never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
