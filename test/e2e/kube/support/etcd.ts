// Direct access to the test control plane's etcd, to compact its history: after a compaction, a watch that
// resumes from an older resourceVersion gets the real 410 Expired from the apiserver (for resources the watch
// cache does not serve, such as Events). The etcd URL is not part of ControlPlaneInfo, so it is read from the
// command line of the processes the control plane recorded in its owner file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';

export function etcdURL(info: ControlPlaneInfo): string {
  const owner = JSON.parse(readFileSync(join(info.dir, 'owner.json'), 'utf8')) as { pids: number[] };
  for (const pid of owner.pids) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    for (const arg of args) {
      const m = /^--(?:etcd-servers|listen-client-urls)=(http:\/\/[^,]+)/.exec(arg);
      if (m?.[1]) return m[1];
    }
  }
  throw new Error(`no etcd URL found on the command lines of ${owner.pids.join(', ')} (needs /proc)`);
}

async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${url}: HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Compacts etcd up to its current revision; returns that revision. */
export async function compactEtcd(info: ControlPlaneInfo): Promise<number> {
  const base = etcdURL(info);
  const range = await post<{ header: { revision: string } }>(`${base}/v3/kv/range`, {
    key: Buffer.from('\0').toString('base64'),
  });
  const revision = Number(range.header.revision);
  await post(`${base}/v3/kv/compaction`, { revision: String(revision), physical: true });
  return revision;
}
