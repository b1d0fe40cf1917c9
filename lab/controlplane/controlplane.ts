// A real control plane for tests and the demo: etcd + kube-apiserver on free loopback ports, TLS with the
// apiserver's self-signed certificate, token authentication and RBAC authorization.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryPath } from './binaries.ts';
import { GiveUp, httpsGet, waitFor } from './https-probe.ts';
import { freePort, ManagedProcess, onProcessExit, reapStaleControlPlanes, writeOwnerFile } from '../process/index.ts';

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

/** How to (re)start one of the control plane's processes, and when it serves. */
interface ComponentSpec {
  name: string;
  bin: string;
  args: string[];
  logPath: string;
  /** Resolves once the process serves; throws GiveUp when it exited. */
  ready: (process: ManagedProcess) => Promise<void>;
}

function spawnComponent(spec: ComponentSpec): ManagedProcess {
  return new ManagedProcess(spec.name, spec.bin, spec.args, { logPath: spec.logPath });
}

export class ControlPlane {
  readonly info: ControlPlaneInfo;
  private etcd: ManagedProcess;
  private apiserver: ManagedProcess;
  private readonly specs: { etcd: ComponentSpec; apiserver: ComponentSpec };
  private readonly removeExitHook: () => void;

  private constructor(
    info: ControlPlaneInfo,
    running: { etcd: ManagedProcess; apiserver: ManagedProcess },
    specs: { etcd: ComponentSpec; apiserver: ComponentSpec },
    removeExitHook: () => void,
  ) {
    this.info = info;
    this.etcd = running.etcd;
    this.apiserver = running.apiserver;
    this.specs = specs;
    this.removeExitHook = removeExitHook;
  }

  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const parent = options.parentDir ?? tmpdir();
    reapStaleControlPlanes(parent, DIR_PREFIX);
    const dir = mkdtempSync(join(parent, DIR_PREFIX));
    const removeExitHook = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
    let etcd: ManagedProcess | undefined;
    let apiserver: ManagedProcess | undefined;
    try {
      const serviceCIDR = options.serviceCIDR ?? '10.96.0.0/16';
      const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
      const etcdURL = `http://127.0.0.1:${etcdClientPort}`;
      const etcdSpec = etcdComponent(dir, etcdURL, `http://127.0.0.1:${etcdPeerPort}`);
      etcd = spawnComponent(etcdSpec);
      writeOwnerFile(dir, [etcd.pid ?? 0]);

      const adminToken = randomBytes(24).toString('hex');
      writeFileSync(join(dir, 'tokens.csv'), `${adminToken},admin,admin,system:masters\n`, { mode: 0o600 });
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
      mkdirSync(join(dir, 'pki'));
      await etcdSpec.ready(etcd);

      const server = `https://127.0.0.1:${apiPort}`;
      const timeout = options.readyTimeoutMs ?? 90_000;
      const caPem = { text: '' };
      const apiserverSpec = apiserverComponent({
        dir,
        etcdURL,
        apiPort,
        serviceCIDR,
        options,
        server,
        adminToken,
        caPem,
      });
      apiserver = spawnComponent(apiserverSpec);
      writeOwnerFile(dir, [etcd.pid ?? 0, apiserver.pid ?? 0]);
      await apiserverSpec.ready(apiserver);
      // The system namespaces appear shortly after readiness; tests and the CCM need kube-system.
      await waitFor(
        'namespace kube-system',
        async () => (await httpsGet(`${server}/api/v1/namespaces/kube-system`, caPem.text, adminToken)).status === 200,
        timeout,
        () => `kube-apiserver log tail:\n${apiserver?.tail()}`,
      );

      const kubeconfigPath = join(dir, 'admin.kubeconfig');
      writeFileSync(kubeconfigPath, kubeconfigJSON(server, caPem.text, 'admin', adminToken), { mode: 0o600 });
      const info: ControlPlaneInfo = { server, caPem: caPem.text, adminToken, kubeconfigPath, dir, serviceCIDR };
      return new ControlPlane(info, { etcd, apiserver }, { etcd: etcdSpec, apiserver: apiserverSpec }, removeExitHook);
    } catch (err) {
      await apiserver?.stop();
      await etcd?.stop();
      rmSync(dir, { recursive: true, force: true });
      removeExitHook();
      throw err;
    }
  }

  /**
   * Stops kube-apiserver (SIGTERM, or SIGKILL when `hard`) and starts it again on the same port, certificate and
   * etcd; resolves once it is ready again. Clients see refused connections meanwhile.
   */
  async restartAPIServer(options: { hard?: boolean; downMs?: number } = {}): Promise<void> {
    this.apiserver = await this.restart(this.apiserver, this.specs.apiserver, options);
  }

  /** Stops etcd and starts it again on its data directory; resolves once it serves again. */
  async restartEtcd(options: { hard?: boolean; downMs?: number } = {}): Promise<void> {
    this.etcd = await this.restart(this.etcd, this.specs.etcd, options);
  }

  private async restart(
    running: ManagedProcess,
    spec: ComponentSpec,
    options: { hard?: boolean; downMs?: number },
  ): Promise<ManagedProcess> {
    if (options.hard) {
      running.killNow();
      await running.exited;
    } else {
      await running.stop();
    }
    if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
    const next = spawnComponent(spec);
    const other = next.name === 'etcd' ? this.apiserver : this.etcd;
    writeOwnerFile(this.info.dir, [next.pid ?? 0, other.pid ?? 0]);
    await spec.ready(next);
    return next;
  }

  /** Stops kube-apiserver, then etcd, and removes the temp directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.apiserver.stop();
    await this.etcd.stop();
    rmSync(this.info.dir, { recursive: true, force: true });
    this.removeExitHook();
  }
}

function etcdComponent(dir: string, etcdURL: string, peerURL: string): ComponentSpec {
  return {
    name: 'etcd',
    bin: binaryPath('etcd'),
    args: [
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
    logPath: join(dir, 'etcd.log'),
    ready: (etcd) =>
      waitFor(
        'etcd to serve',
        async () => {
          if (!etcd.running) throw new GiveUp('etcd exited');
          const res = await fetch(`${etcdURL}/health`);
          return res.ok;
        },
        30_000,
        () => `etcd log tail:\n${etcd.tail()}`,
      ),
  };
}

interface APIServerParts {
  dir: string;
  etcdURL: string;
  apiPort: number;
  serviceCIDR: string;
  options: ControlPlaneOptions;
  server: string;
  adminToken: string;
  /** Filled in by the first start: the apiserver's self-signed serving certificate, kept across restarts. */
  caPem: { text: string };
}

function apiserverComponent(p: APIServerParts): ComponentSpec {
  const { dir } = p;
  const timeout = p.options.readyTimeoutMs ?? 90_000;
  return {
    name: 'kube-apiserver',
    bin: binaryPath('kube-apiserver'),
    args: [
      `--etcd-servers=${p.etcdURL}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${p.apiPort}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--service-cluster-ip-range=${p.serviceCIDR}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--disable-admission-plugins=ServiceAccount',
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      ...(p.options.apiserverFlags ?? []),
    ],
    logPath: join(dir, 'kube-apiserver.log'),
    ready: async (apiserver) => {
      const describe = () => `kube-apiserver log tail:\n${apiserver.tail()}`;
      // The apiserver writes its self-signed serving certificate (leaf followed by its CA) into --cert-dir once, and
      // reuses it when restarted.
      await waitFor(
        'kube-apiserver to write its serving certificate',
        async () => {
          if (!apiserver.running) throw new GiveUp('kube-apiserver exited');
          if (!readdirSync(join(dir, 'pki')).includes('apiserver.crt')) return false;
          p.caPem.text = readFileSync(join(dir, 'pki', 'apiserver.crt'), 'utf8');
          return p.caPem.text.includes('END CERTIFICATE');
        },
        timeout,
        describe,
      );
      await waitFor(
        'kube-apiserver /readyz',
        async () => {
          if (!apiserver.running) throw new GiveUp('kube-apiserver exited');
          return (await httpsGet(`${p.server}/readyz`, p.caPem.text, p.adminToken)).status === 200;
        },
        timeout,
        describe,
      );
    },
  };
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
