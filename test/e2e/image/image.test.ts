// The image `npm run build:image` builds from the Dockerfile, run by its own entrypoint under runc as the chart runs
// it (uid 65532, read-only root, no capabilities, the ServiceAccount token, plugin configuration and credentials
// mounted) against the real control plane: it finds the apiserver in-cluster style, leads, initializes a kwok node
// with the devcloud plugin the image ships, serves /readyz, and on SIGTERM releases the Lease and exits 0.
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../lab/ccm/index.ts';
import {
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
  startKwok,
  uniqueName,
} from '../../../lab/controlplane/index.ts';
import { eventually, freePort, httpsGetInsecure, type ManagedProcess } from '../../../lab/process/index.ts';
import { builtImage, prepareBundle, requireTool, RuncContainer } from './support/runc.ts';

const LEASE = { namespace: 'kube-system', name: 'cloud-controller-manager' };
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const IMAGE_UID = 65532;

describe('the wasm-ccm image under runc (uid 65532, read-only root, the chart’s mounts)', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const coordination = admin.makeApiClient(CoordinationV1Api);
  const dir = join(info.dir, `image-${process.pid}`);
  const nodeName = uniqueName('image-node');
  let cloud: Devcloud;
  let kwok: ManagedProcess;
  let container: RuncContainer;
  let port: number;

  /** A directory of files to bind into the container, readable by its user as a kubelet's volumes are. */
  function volume(name: string, files: Record<string, string>, mode = 0o644): string {
    const path = join(dir, name);
    mkdirSync(path, { recursive: true, mode: 0o755 });
    chmodSync(path, 0o755);
    for (const [file, text] of Object.entries(files)) {
      writeFileSync(join(path, file), text);
      chownSync(join(path, file), 0, IMAGE_UID);
      chmodSync(join(path, file), mode);
    }
    return path;
  }

  beforeAll(async () => {
    requireTool('umoci');
    requireTool('runc');
    const image = builtImage();
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    cloud = await startDevcloud();
    port = await freePort();
    const host = `127.0.0.1:${cloud.port}`;
    const credentials = {
      credentials: [{ name: 'devcloud', hosts: [host], bearerToken: cloud.token, insecure: true }],
    };
    const providers = [
      {
        name: 'devcloud',
        source: { file: '/usr/lib/wasm-ccm/plugins/devcloud.wasm' },
        allowedHosts: [host],
        credentials: { file: '/etc/wasm-ccm/credentials/credentials.json' },
        cloudConfig: { url: cloud.url, region: 'dc-east-1' },
      },
    ];
    const apiserver = new URL(info.server);
    const bundle = join(dir, 'bundle');
    const started = Date.now();
    prepareBundle(image, bundle, {
      args: [
        '--cloud-provider=devcloud',
        '--plugin-config=/etc/wasm-ccm/config/plugins.yaml',
        '--controllers=cloud-node,cloud-node-lifecycle',
        `--secure-port=${port}`,
        '--bind-address=127.0.0.1',
        '--logging-format=json',
        '--leader-elect=true',
      ],
      env: { KUBERNETES_SERVICE_HOST: apiserver.hostname, KUBERNETES_SERVICE_PORT: apiserver.port },
      volumes: {
        [volume('token', { token, 'ca.crt': info.caPem, namespace: LEASE.namespace })]: SERVICE_ACCOUNT_DIR,
        [volume('config', { 'plugins.yaml': JSON.stringify({ providers }) })]: '/etc/wasm-ccm/config',
        [volume('credentials', { 'credentials.json': JSON.stringify(credentials) }, 0o440)]:
          '/etc/wasm-ccm/credentials',
      },
    });
    console.log(`umoci unpack + config.json: ${Date.now() - started} ms`);
    container = new RuncContainer(bundle, `wasm-ccm-e2e-${process.pid}`, join(dir, 'runc'), join(dir, 'ccm.log'));
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: dir });
  }, 300_000); // umoci writes the whole root file system (~0.5 GB)

  afterAll(async () => {
    await container?.stop();
    container?.remove();
    await kwok?.stop();
    await core.deleteNode({ name: nodeName }).catch(() => undefined);
    await cloud?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs its entrypoint as uid 65532 on a read-only root, as PID 1, and leads', async () => {
    const leading = await container.waitForLog('started leading', (r) => r.msg === 'started leading');
    const lease = await coordination.readNamespacedLease(LEASE);
    expect(lease.spec?.holderIdentity).toBe(String(leading.identity));

    const pid = container.initPid();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}$`, 'm'));
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    // PID 1 in its own PID namespace: the last NSpid field is the PID inside the container.
    expect(status).toMatch(/^NSpid:.*\s1$/m);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain('dist/host/src/main.js');
    // The root mount, seen from inside the container: mountinfo's mount point "/" with the "ro" option.
    const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[4] === '/');
    expect(root?.[5]?.split(',')).toContain('ro');
  });

  it('initializes a kwok node with the devcloud plugin the image ships, and serves /readyz', async () => {
    const loaded = await container.waitForLog('the plugin loaded', (r) => r.msg === 'plugin loaded');
    const shipped = readFileSync(join(dir, 'bundle', 'rootfs', 'usr', 'lib', 'wasm-ccm', 'plugins', 'devcloud.wasm'));
    expect(loaded.sha256).toBe(createHash('sha256').update(shipped).digest('hex'));
    const instance = cloud.addInstance({ name: nodeName, type: 'dc.large', zone: 'dc-east-1b' });
    await core.createNode({
      body: kubeletNode(nodeName, { annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } }),
    });
    const node = await eventually(
      `node ${nodeName} initialized`,
      async () => {
        const n: V1Node = await core.readNode({ name: nodeName });
        return n.spec?.providerID && !hasTaint(n, UNINITIALIZED_TAINT.key) ? n : undefined;
      },
      60_000,
    );
    expect(node.spec?.providerID).toBe(`devcloud://${instance.id}`);
    expect(node.metadata?.labels?.['node.kubernetes.io/instance-type']).toBe('dc.large');
    expect(node.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('dc-east-1b');
    expect(await httpsGetInsecure(`https://127.0.0.1:${port}/readyz`)).toEqual({ status: 200, body: 'ok' });
  });

  it('exits 0 on SIGTERM with the Lease released, having logged no error', async () => {
    const holder = (await coordination.readNamespacedLease(LEASE)).spec?.holderIdentity;
    expect(holder).toBeTruthy();
    const termAt = Date.now();
    expect(await container.stop()).toBe(0);
    const stoppedMs = Date.now() - termAt;
    expect(container.logs().some((r) => r.msg === 'released leader lease')).toBe(true);
    const lease = await coordination.readNamespacedLease(LEASE);
    expect(lease.spec?.holderIdentity ?? '').toBe('');
    expect(container.logs().filter((r) => r.level === 'error')).toEqual([]);
    console.log(`SIGTERM -> exited 0 with the Lease released in ${stoppedMs} ms`);
  });
});
