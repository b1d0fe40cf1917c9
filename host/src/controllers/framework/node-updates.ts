// Writes to Nodes as upstream's node controllers make them: read the current object, change it, update, and
// on a conflict read again and retry (clientretry.RetryOnConflict).
import { HttpMethod } from '../../kube/client/http-method.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import { isConflict } from '../../kube/client/errors.ts';
import type { WireNode } from './wire-objects.ts';

const nodePath = (name: string) => `/api/v1/nodes/${encodeURIComponent(name)}`;
const CONFLICT_RETRIES = 10;

function getNode(client: KubeClient, name: string): Promise<WireNode> {
  return client.request<WireNode>({ path: nodePath(name) });
}

/**
 * Applies `mutate` to the current Node and writes it; `mutate` returns undefined when nothing needs writing.
 * Resolves with the node as written (or the unchanged one): the body sent, as upstream's node controller goes on
 * with its modified copy (newNode) after the Update. The apiserver's answer, the whole Node, is not parsed.
 *
 * With `cached` (the informer's copy) the first attempt starts from it without a request, as upstream's node controller
 * starts from its lister: under the default 20 QPS a GET per node would be one request more of the few that
 * initializing it takes (bench/upstream/node-requests.ts counts them). A stale copy only costs a 409, after which the node is
 * read from the apiserver. The cache is trimmed to what the controllers read, which is safe for an update of the node
 * itself: the apiserver keeps the stored status on PUT /nodes/{name}, and a body without managedFields keeps the stored
 * ones.
 */
export async function updateNode(
  client: KubeClient,
  name: string,
  mutate: (node: WireNode) => WireNode | undefined,
  cached?: WireNode,
): Promise<WireNode> {
  for (let attempt = 0; ; attempt++) {
    const current = attempt === 0 && cached ? cached : await getNode(client, name);
    const next = mutate(current);
    if (!next) return current;
    try {
      await client.request<void>({ method: HttpMethod.PUT, path: nodePath(name), body: next, ignoreResponse: true });
      return next;
    } catch (err) {
      if (!isConflict(err) || attempt >= CONFLICT_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 50));
    }
  }
}

/** Replaces status.addresses (a JSON merge patch replaces lists whole; a strategic one would merge by type). */
// The controllers act on what the informer delivers, not on these patches' answers: they are not parsed.
export function patchNodeAddresses(
  client: KubeClient,
  name: string,
  addresses: { type: string; address: string }[],
): Promise<void> {
  return client.patch<void>(`${nodePath(name)}/status`, { status: { addresses } }, 'merge', { ignoreResponse: true });
}

export function patchNodeLabels(client: KubeClient, name: string, labels: Record<string, string>): Promise<void> {
  return client.patch<void>(nodePath(name), { metadata: { labels } }, 'merge', { ignoreResponse: true });
}

export function deleteNode(client: KubeClient, name: string): Promise<unknown> {
  return client.request({ method: HttpMethod.DELETE, path: nodePath(name) });
}
