// A real control plane for tests and the demo: etcd + kube-apiserver on free loopback ports, TLS with the
// apiserver's self-signed certificate, token authentication and RBAC authorization.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryPath } from './binaries.ts';
import { GiveUp, httpsGet, waitFor } from './https-probe.ts';
import { freePort } from './ports.ts';
import { ManagedProcess, onProcessExit } from './process.ts';
import { reapStaleControlPlanes, writeOwnerFile } from './reaper.ts';

/** What a test needs to reach the control plane; plain data so vitest can hand it to test workers. */
export interface ControlPlaneInfo {
  server: string;
  /** PEM bundle that verifies the apiserver's serving certificate. */
  caPem: string;
  adminToken: string;
  /** An admin kubeconfig file (JSON, which every kubeconfig reader accepts as YAML). */
  kubeconfigPath: string;
  dir: string;
  serviceCIDR: string;
}

export interface ControlPlaneOptions {
  /** Where the temp directory goes (default: the OS temp dir). */
  parentDir?: string;
  serviceCIDR?: string;
  readyTimeoutMs?: number;
  /** Extra kube-apiserver flags, e.g. ['--max-requests-inflight=800']. */
  apiserverFlags?: string[];
}

const DIR_PREFIX = 'wasm-ccm-cp-';

export class ControlPlane {
  readonly info: ControlPlaneInfo;
  private readonly etcd: ManagedProcess;
  private readonly apiserver: ManagedProcess;
  private readonly removeExitHook: () => void;

  private constructor(
    info: ControlPlaneInfo,
    etcd: ManagedProcess,
    apiserver: ManagedProcess,
    removeExitHook: () => void,
  ) {
    this.info = info;
    this.etcd = etcd;
    this.apiserver = apiserver;
    this.removeExitHook = removeExitHook;
  }

  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const parent = options.parentDir ?? tmpdir();
    reapStaleControlPlanes(parent, DIR_PREFIX);
    const etcdBin = binaryPath('etcd');
    const apiserverBin = binaryPath('kube-apiserver');

    const dir = mkdtempSync(join(parent, DIR_PREFIX));
    const removeExitHook = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
    const pids: number[] = [];
    let etcd: ManagedProcess | undefined;
    let apiserver: ManagedProcess | undefined;
    try {
      const serviceCIDR = options.serviceCIDR ?? '10.96.0.0/16';
      const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
      const etcdURL = `http://127.0.0.1:${etcdClientPort}`;
      const peerURL = `http://127.0.0.1:${etcdPeerPort}`;
      etcd = new ManagedProcess(
        'etcd',
        etcdBin,
        [
          `--name=default`,
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdURL}`,
          `--advertise-client-urls=${etcdURL}`,
          `--listen-peer-urls=${peerURL}`,
          `--initial-advertise-peer-urls=${peerURL}`,
          `--initial-cluster=default=${peerURL}`,
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        { logPath: join(dir, 'etcd.log') },
      );
      if (etcd.pid) pids.push(etcd.pid);
      writeOwnerFile(dir, pids);

      const adminToken = randomBytes(24).toString('hex');
      writeFileSync(join(dir, 'tokens.csv'), `${adminToken},admin,admin,system:masters\n`, { mode: 0o600 });
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
      mkdirSync(join(dir, 'pki'));

      await waitFor(
        'etcd to serve',
        async () => {
          if (!etcd?.running) throw new GiveUp('etcd exited');
          const res = await fetch(`${etcdURL}/health`);
          return res.ok;
        },
        30_000,
        () => `etcd log tail:\n${etcd?.tail()}`,
      );

      apiserver = new ManagedProcess(
        'kube-apiserver',
        apiserverBin,
        [
          `--etcd-servers=${etcdURL}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          `--secure-port=${apiPort}`,
          `--cert-dir=${join(dir, 'pki')}`,
          `--service-cluster-ip-range=${serviceCIDR}`,
          '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
          `--service-account-key-file=${join(dir, 'sa.pub')}`,
          `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
          `--token-auth-file=${join(dir, 'tokens.csv')}`,
          '--authorization-mode=RBAC',
          '--disable-admission-plugins=ServiceAccount',
          '--endpoint-reconciler-type=none',
          '--profiling=false',
          ...(options.apiserverFlags ?? []),
        ],
        { logPath: join(dir, 'kube-apiserver.log') },
      );
      if (apiserver.pid) pids.push(apiserver.pid);
      writeOwnerFile(dir, pids);

      const server = `https://127.0.0.1:${apiPort}`;
      const describe = () => `kube-apiserver log tail:\n${apiserver?.tail()}`;
      const timeout = options.readyTimeoutMs ?? 90_000;
      // The apiserver writes its self-signed serving certificate (leaf followed by its CA) into --cert-dir.
      let caPem = '';
      await waitFor(
        'kube-apiserver to write its serving certificate',
        async () => {
          if (!apiserver?.running) throw new GiveUp('kube-apiserver exited');
          const files = readdirSync(join(dir, 'pki'));
          if (!files.includes('apiserver.crt')) return false;
          caPem = readFileSync(join(dir, 'pki', 'apiserver.crt'), 'utf8');
          return caPem.includes('END CERTIFICATE');
        },
        timeout,
        describe,
      );
      await waitFor(
        'kube-apiserver /readyz',
        async () => {
          if (!apiserver?.running) throw new GiveUp('kube-apiserver exited');
          return (await httpsGet(`${server}/readyz`, caPem, adminToken)).status === 200;
        },
        timeout,
        describe,
      );
      // The system namespaces appear shortly after readiness; tests and the CCM need kube-system.
      await waitFor(
        'namespace kube-system',
        async () => (await httpsGet(`${server}/api/v1/namespaces/kube-system`, caPem, adminToken)).status === 200,
        timeout,
        describe,
      );

      const kubeconfigPath = join(dir, 'admin.kubeconfig');
      writeFileSync(kubeconfigPath, kubeconfigJSON(server, caPem, 'admin', adminToken), { mode: 0o600 });
      const info: ControlPlaneInfo = { server, caPem, adminToken, kubeconfigPath, dir, serviceCIDR };
      return new ControlPlane(info, etcd, apiserver, removeExitHook);
    } catch (err) {
      await apiserver?.stop();
      await etcd?.stop();
      rmSync(dir, { recursive: true, force: true });
      removeExitHook();
      throw err;
    }
  }

  /** Stops kube-apiserver, then etcd, and removes the temp directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.apiserver.stop();
    await this.etcd.stop();
    rmSync(this.info.dir, { recursive: true, force: true });
    this.removeExitHook();
  }
}

/** A kubeconfig for one token identity, as JSON. */
export function kubeconfigJSON(server: string, caPem: string, user: string, token: string): string {
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'wasm-ccm-test',
          cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
        },
      ],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: user, context: { cluster: 'wasm-ccm-test', user } }],
      'current-context': user,
    },
    null,
    2,
  );
}
