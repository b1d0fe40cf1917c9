// Reads and writes the election Lease. Updates carry the resourceVersion that was read, so two candidates
// racing for the same Lease cannot both win: the apiserver answers the slower one 409 Conflict.
import { HttpMethod } from '../client/http-method.ts';
import type { KubeClient } from '../client/client.ts';
import { isNotFound } from '../client/errors.ts';
import type { WireObjectMeta } from '../client/wire.ts';
import { type LeaderElectionRecord, type LeaseSpec, recordFromSpec, specFromRecord } from './record.ts';

export interface LeaseState {
  record: LeaderElectionRecord;
  resourceVersion: string;
}

/**
 * Asked right before a request's bytes are written (after the rate limiter's wait): an Error fails the request with
 * nothing sent. The elector's check that a renewal is not past its deadline.
 */
export type BeforeWrite = () => Error | undefined;

export interface LeaseLock {
  readonly description: string;
  /** undefined when the Lease does not exist. */
  get(signal: AbortSignal, beforeWrite?: BeforeWrite): Promise<LeaseState | undefined>;
  create(record: LeaderElectionRecord, signal: AbortSignal, beforeWrite?: BeforeWrite): Promise<LeaseState>;
  /** Fails (409) if the Lease changed since `resourceVersion`. */
  update(
    record: LeaderElectionRecord,
    resourceVersion: string,
    signal: AbortSignal,
    beforeWrite?: BeforeWrite,
  ): Promise<LeaseState>;
}

interface LeaseJson {
  apiVersion?: string;
  kind?: string;
  metadata?: WireObjectMeta;
  spec?: LeaseSpec;
}

/** Upstream's --leader-elect-resource-namespace / --leader-elect-resource-name defaults. */
const DEFAULT_LEASE_NAMESPACE = 'kube-system';
const DEFAULT_LEASE_NAME = 'cloud-controller-manager';

export function kubeLeaseLock(
  client: KubeClient,
  namespace = DEFAULT_LEASE_NAMESPACE,
  name = DEFAULT_LEASE_NAME,
): LeaseLock {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const item = `${collection}/${encodeURIComponent(name)}`;
  // The last Lease read, so an update keeps its labels/annotations/ownerReferences and only replaces the spec.
  let last: LeaseJson | undefined;
  const state = (lease: LeaseJson): LeaseState => {
    last = lease;
    return { record: recordFromSpec(lease.spec), resourceVersion: lease.metadata?.resourceVersion ?? '' };
  };
  return {
    description: `${namespace}/${name}`,
    async get(signal, beforeWrite) {
      try {
        return state(await client.request<LeaseJson>({ path: item, signal, beforeWrite }));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record, signal, beforeWrite) {
      const body: LeaseJson = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: specFromRecord(record),
      };
      const request = { method: HttpMethod.POST, path: collection, body, signal, beforeWrite };
      return state(await client.request<LeaseJson>(request));
    },
    async update(record, resourceVersion, signal, beforeWrite) {
      const body: LeaseJson = {
        ...last,
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { ...last?.metadata, name, namespace, resourceVersion },
        spec: specFromRecord(record),
      };
      if (body.metadata) delete body.metadata.managedFields;
      return state(await client.request<LeaseJson>({ method: HttpMethod.PUT, path: item, body, signal, beforeWrite }));
    },
  };
}
