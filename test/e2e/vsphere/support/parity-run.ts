// One side of the vSphere parity test: a fresh vcsim seeded with the estate (estate.ts), kwok Nodes for its VMs, one
// CCM (upstream's vsphere-cloud-controller-manager or wasm-ccm with plugins/vsphere) running the cloud-node and
// cloud-node-lifecycle controllers; then one VM powered off and one destroyed, their kubelets gone (NotReady). The
// result is a flattened snapshot of the Nodes (providerID, labels, taints, addresses) after initialization and after
// the lifecycle, and of each Node's Event reasons.
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import {
  CCMProcess,
  deleteNodes,
  hasTaint,
  setReady,
  SHUTDOWN_TAINT_KEY,
  UNINITIALIZED_TAINT,
  vspherePluginArgs,
} from '../../../../lab/ccm/index.ts';
import { destroyVm, powerOff, type Vcsim } from '../../../../lab/clouds/vsphere/index.ts';
import { type ControlPlaneInfo, KWOK_ANNOTATION } from '../../../../lab/controlplane/index.ts';
import { VspherePeerCCM } from '../../../../lab/peers/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { flatten, seg, type Snapshot } from '../../../support/parity/flatten.ts';
import { nodeEventReasons } from '../../../support/parity/events.ts';
import { patchNode } from '../../service/support/helpers.ts';
import { account, DATACENTER, startEstate, TOPOLOGY, vmNode, VMS } from './estate.ts';

export type VsphereImpl = 'upstream' | 'wasm-ccm';

export interface ParityContext {
  info: ControlPlaneInfo;
  admin: KubeConfig;
  /** The wasm-ccm ServiceAccount's token (manifests/rbac.yaml). */
  token: string;
}

export interface Running {
  stop(): Promise<number | null>;
  running(): boolean;
  tail(): string;
}

/** The VM powered off and the one destroyed, both with their kubelets gone. */
export const STOPPED = VMS[2]!;
export const DESTROYED = VMS[3]!;

const LIFECYCLE_FLAGS = ['--leader-elect=false', '--node-monitor-period=1s'];

/** The CCM of `impl` against `vc`, running only the node controllers. */
export function startVsphereCCM(impl: VsphereImpl, ctx: ParityContext, vc: Vcsim): Running {
  if (impl === 'upstream') {
    const peer = new VspherePeerCCM({
      info: ctx.info,
      account: account(vc),
      topology: TOPOLOGY,
      args: ['--controllers=cloud-node-controller,cloud-node-lifecycle-controller', ...LIFECYCLE_FLAGS],
    });
    return { stop: () => peer.stop(), running: () => peer.process.running, tail: () => peer.process.tail() };
  }
  const ccm = new CCMProcess({
    info: ctx.info,
    token: ctx.token,
    args: [
      ...vspherePluginArgs(ctx.info.dir, account(vc), TOPOLOGY),
      '--controllers=cloud-node,cloud-node-lifecycle',
      ...LIFECYCLE_FLAGS,
    ],
  });
  return { stop: () => ccm.stop(), running: () => ccm.process.running, tail: () => ccm.process.tail() };
}

export async function runVsphereParity(impl: VsphereImpl, ctx: ParityContext): Promise<Snapshot> {
  const core = ctx.admin.makeApiClient(CoreV1Api);
  const vc = await startEstate();
  const names = VMS.map((vm) => vm.name);
  let ccm: Running | undefined;
  try {
    // Other files name their Nodes after the same VMs (test/e2e/multicloud): their Events are not this run's.
    await clearEvents(core, names);
    for (const vm of VMS) await core.createNode({ body: vmNode(vm) });
    ccm = startVsphereCCM(impl, ctx, vc);
    const out: Snapshot = new Map();
    for (const name of names) {
      const node = await initialized(core, ccm, impl, name);
      flatten(out, `initialized/node/${seg(name)}`, nodeView(node));
    }
    await stopAndDestroy(ctx.admin, vc);
    const tainted = await eventually(
      `${impl}: shutdown taint on ${STOPPED.name}`,
      async () => {
        alive(ccm as Running, impl);
        const n = await core.readNode({ name: STOPPED.name });
        return hasTaint(n, SHUTDOWN_TAINT_KEY) ? n : undefined;
      },
      30_000,
    );
    await eventually(`${impl}: ${DESTROYED.name} deleted`, () => gone(core, DESTROYED.name), 30_000);
    // Both CCMs write the deletion's Event on its own, after the decision: the Node can be gone before it is there.
    await eventually(
      `${impl}: DeletingNode Event of ${DESTROYED.name}`,
      async () => (await nodeEventReasons(core, DESTROYED.name)).includes('DeletingNode'),
      30_000,
    );
    flatten(out, `lifecycle/node/${seg(STOPPED.name)}`, nodeView(tainted));
    const left = (await core.listNode()).items.map((n) => n.metadata?.name ?? '').filter((n) => names.includes(n));
    flatten(out, 'lifecycle/nodes', left.sort());
    for (const name of names) flatten(out, `events/node/${seg(name)}`, await nodeEventReasons(core, name));
    return out;
  } catch (err) {
    throw new Error(`${impl}: ${String(err)}\nCCM log tail:\n${ccm?.tail() ?? '(not started)'}`, { cause: err });
  } finally {
    await ccm?.stop();
    await deleteNodes(ctx.admin, names);
    await clearEvents(core, names);
    await vc.stop();
  }
}

/** The Node once the CCM has initialized it and its addresses are the VM's (they follow the taint's removal). */
export async function initialized(core: CoreV1Api, ccm: Running, what: string, name: string): Promise<V1Node> {
  try {
    return await eventually(
      `${what}: ${name} initialized`,
      async () => {
        if (!ccm.running()) throw new Error(`${what}: the CCM exited`);
        const n = await core.readNode({ name });
        const addressed = n.status?.addresses?.some((a) => a.type === 'InternalIP') ?? false;
        return hasTaint(n, UNINITIALIZED_TAINT.key) || !addressed ? undefined : n;
      },
      45_000,
    );
  } catch (err) {
    throw new Error(`${String(err)}\nCCM log tail:\n${ccm.tail()}`, { cause: err });
  }
}

/** Powers STOPPED off and destroys DESTROYED; their kubelets stop: kwok lets go, and Ready turns False. */
export async function stopAndDestroy(admin: KubeConfig, vc: Vcsim): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  await powerOff(vc, DATACENTER, STOPPED.name);
  await destroyVm(vc, DATACENTER, DESTROYED.name);
  for (const name of [STOPPED.name, DESTROYED.name]) {
    await patchNode(core, name, { metadata: { annotations: { [KWOK_ANNOTATION]: null } } });
    await setReady(admin, name, false);
  }
}

export async function gone(core: CoreV1Api, name: string): Promise<boolean> {
  try {
    await core.readNode({ name });
    return false;
  } catch (err) {
    return (err as { code?: number }).code === 404;
  }
}

function alive(ccm: Running, impl: VsphereImpl): void {
  if (!ccm.running()) throw new Error(`${impl} exited`);
}

function nodeView(node: V1Node): object {
  return {
    providerID: node.spec?.providerID ?? '',
    labels: node.metadata?.labels ?? {},
    addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, value: t.value })),
  };
}

/** Removes this run's Node Events so the other implementation's run starts from none (the names are the same). */
async function clearEvents(core: CoreV1Api, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const list = await core.listEventForAllNamespaces({
      fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}`,
    });
    for (const e of list.items) {
      await core
        .deleteNamespacedEvent({ namespace: e.metadata?.namespace ?? 'default', name: e.metadata?.name ?? '' })
        .catch(() => undefined);
    }
  }
}
