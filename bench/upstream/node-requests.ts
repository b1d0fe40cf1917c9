// Apiserver requests per node initialization, wasm-ccm vs the upstream CCM peer, counted exactly from the
// apiserver's audit log (one entry per request at ResponseComplete, with the caller's user agent), so both
// implementations are measured the same way whatever their own client metrics say.
// Each implementation gets a fresh control plane and devcloud and the flags of bench:compare; after a warm-up node,
// N tainted Ready Nodes are registered at once, and every request the CCM made from then until the last node is
// initialized and the CCM has gone quiet is counted by verb/resource/subresource (and response code when not 2xx).
// Usage: node bench/upstream/node-requests.ts [--nodes=50] [--only=wasm_ccm|upstream] [--qps=200] [--burst=400]
//   [--settle-ms=6000] [--json]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpMethod } from '../../host/src/kube/client/http-method.ts';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { kubeletNode, UNINITIALIZED_TAINT } from '../../lab/ccm/index.ts';
import { NodeInitWatch } from '../lib/node-init-watch.ts';
import { type Impl, startCCM, benchFlags } from '../lib/start-ccm.ts';
import { cpuSeconds } from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '50' },
    only: { type: 'string' },
    qps: { type: 'string', default: '200' },
    burst: { type: 'string', default: '400' },
    'settle-ms': { type: 'string', default: '6000' },
    json: { type: 'boolean', default: false },
  },
});
const NODES = Number(values.nodes);
const SETTLE_MS = Number(values['settle-ms']);
const RUN_LABEL = 'bench.wasm-ccm/requests';
// The same controllers and client limits as bench:compare, so the counts explain its node-init numbers.
const FLAGS = benchFlags({ qps: Number(values.qps), burst: Number(values.burst) });

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

interface AuditEvent {
  stage: string;
  verb: string;
  user?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

export interface RequestCounts {
  nodes: number;
  /** "verb resource[/subresource][ code]" -> count, over the burst window. */
  requests: Record<string, number>;
  perNode: Record<string, number>;
  total: number;
  totalPerNode: number;
  /** Seconds from the burst's start until every node lost the taint (audit logging slows the apiserver a bit). */
  initS?: number;
  /** CPU seconds of the CCM process (every thread) over that time. */
  initCpuS?: number;
}

/** Counts the CCM's requests in an audit log since `sinceMs` (wall clock); everything but the bench's own. */
export function countRequests(logPath: string, sinceMs: number, nodes: number): RequestCounts {
  const requests: Record<string, number> = {};
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as AuditEvent;
    if (e.stage !== 'ResponseComplete') continue;
    if (Date.parse(e.requestReceivedTimestamp) < sinceMs) continue;
    const agent = e.userAgent ?? '';
    if (agent.startsWith('bench') || e.user?.username === 'system:apiserver') continue;
    const resource = e.objectRef?.resource ?? '?';
    const sub = e.objectRef?.subresource ? `/${e.objectRef.subresource}` : '';
    const code = e.responseStatus?.code ?? 0;
    const key = `${e.verb} ${resource}${sub}${code >= 300 ? ` ${code}` : ''}`;
    requests[key] = (requests[key] ?? 0) + 1;
  }
  const perNode: Record<string, number> = {};
  let total = 0;
  for (const [k, v] of Object.entries(requests)) {
    perNode[k] = Math.round((v / nodes) * 1000) / 1000;
    total += v;
  }
  return { nodes, requests, perNode, total, totalPerNode: Math.round((total / nodes) * 1000) / 1000 };
}

async function run(impl: Impl): Promise<RequestCounts> {
  // The policy must exist before the apiserver starts, so the audit files get a directory of their own.
  const auditDir = mkdtempSync(join(tmpdir(), 'wasm-ccm-audit-'));
  const policy = join(auditDir, 'audit-policy.yaml');
  const auditLog = join(auditDir, `audit-${impl}.log`);
  writeFileSync(policy, AUDIT_POLICY);
  const cp = await ControlPlane.start({
    apiserverFlags: [
      '--max-requests-inflight=800',
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${auditLog}`,
      '--audit-log-mode=blocking',
    ],
  });
  let cloud: Devcloud | undefined;
  let ccm: { stop(): Promise<number | null> } | undefined;
  try {
    cloud = await startDevcloud({ token: 'requests-token' });
    const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
    const started = await startCCM(impl, { info: cp.info, cloud, flags: FLAGS, name: 'requests' });
    ccm = started;
    const { pid } = started;
    const watch = new NodeInitWatch(admin, RUN_LABEL, UNINITIALIZED_TAINT.key);
    await watch.start();
    const register = (name: string) =>
      admin.request({
        method: HttpMethod.POST,
        path: '/api/v1/nodes',
        body: kubeletNode(name, { ready: true, labels: { [RUN_LABEL]: 'x' } }),
      });
    cloud.addInstance({ name: 'warmup' });
    await register('warmup');
    await watch.waitCleared(1, 60_000);
    // Let the warm-up node's status patch, event and any start-up traffic finish before the window opens.
    await new Promise((r) => setTimeout(r, SETTLE_MS));

    const since = Date.now();
    const t0 = performance.now();
    const cpu0 = cpuSeconds(pid);
    const names = Array.from({ length: NODES }, (_, i) => `burst-${String(i).padStart(5, '0')}`);
    names.forEach((name) => cloud!.addInstance({ name }));
    // As bench:compare registers them: 50 at a time.
    let next = 0;
    const registrar = async (): Promise<void> => {
      while (next < names.length) await register(names[next++] as string);
    };
    await Promise.all(Array.from({ length: 50 }, registrar));
    await watch.waitCleared(NODES + 1, 300_000);
    const initS = (Math.max(...watch.cleared.values()) - t0) / 1000;
    const initCpuS = cpuSeconds(pid) - cpu0;
    await watch.stop();
    // Status patches and events follow the taint removal; give them time to land.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const round = (v: number): number => Math.round(v * 10) / 10;
    return { ...countRequests(auditLog, since, NODES), initS: round(initS), initCpuS: round(initCpuS) };
  } finally {
    await ccm?.stop().catch(() => undefined);
    await cloud?.stop().catch(() => undefined);
    await cp.stop().catch(() => undefined);
    console.error(`${impl}: audit log kept in ${auditLog}`);
  }
}

const results: Partial<Record<Impl, RequestCounts>> = {};
for (const impl of ['upstream', 'wasm_ccm'] as const) {
  if (values.only !== undefined && values.only !== impl) continue;
  results[impl] = await run(impl);
}
if (values.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  for (const [impl, r] of Object.entries(results)) {
    console.log(`${impl}: ${r.total} requests for ${r.nodes} nodes = ${r.totalPerNode} per node`);
    console.log(`  initialized in ${r.initS} s, ${r.initCpuS} CPU s`);
    for (const [k, v] of Object.entries(r.requests).sort((a, b) => b[1] - a[1])) {
      console.log(`  ${k.padEnd(40)} ${String(v).padStart(6)}  ${r.perNode[k]}/node`);
    }
  }
}
