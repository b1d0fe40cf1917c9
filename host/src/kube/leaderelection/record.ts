// client-go's leader election algorithm (tools/leaderelection/leaderelection.go, tryAcquireOrRenew) as pure
// functions of (what the Lease says, what we observed before, now), so every decision is unit-testable.
// Expiry is judged by OUR clock: a lease counts as held until leaseDuration after we first saw its current
// content, never by comparing its renewTime with our clock (clocks of replicas may disagree).
import { formatMicroTime, parseKubeTime } from './microtime.ts';

export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Epoch ms; undefined when the lease has none. */
  acquireTime: number | undefined;
  renewTime: number | undefined;
  leaseTransitions: number;
}

/** coordination.k8s.io/v1 LeaseSpec as JSON. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [field: string]: unknown;
}

export function recordFromSpec(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseKubeTime(spec?.acquireTime),
    renewTime: parseKubeTime(spec?.renewTime),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

export function specFromRecord(record: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime !== undefined ? { acquireTime: formatMicroTime(record.acquireTime) } : {}),
    ...(record.renewTime !== undefined ? { renewTime: formatMicroTime(record.renewTime) } : {}),
    leaseTransitions: record.leaseTransitions,
  };
}

/** What this candidate last saw in the Lease and when (by its own clock). */
export interface Observation {
  record: LeaderElectionRecord;
  /** A canonical rendering of `record`, to notice any change. */
  raw: string;
  at: number;
}

export function observe(record: LeaderElectionRecord, now: number): Observation {
  return { record, raw: JSON.stringify(specFromRecord(record)), at: now };
}

export type Decision =
  | { action: 'create'; record: LeaderElectionRecord }
  | { action: 'update'; record: LeaderElectionRecord }
  | { action: 'wait'; holder: string; expiresAt: number };

export interface DecideInput {
  identity: string;
  now: number;
  leaseDurationSeconds: number;
  /** The Lease as read now; undefined if it does not exist. */
  current: LeaderElectionRecord | undefined;
  previous: Observation | undefined;
}

/**
 * One round of tryAcquireOrRenew. Returns what to write (or to wait) and the observation to keep. The
 * observation only moves forward in time when the Lease content changed since we last looked.
 */
export function decide(input: DecideInput): { decision: Decision; observation: Observation | undefined } {
  const { identity, now, leaseDurationSeconds, current, previous } = input;
  const ours: LeaderElectionRecord = {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: 0,
  };
  if (!current) return { decision: { action: 'create', record: ours }, observation: previous };

  const seen = observe(current, now);
  const observation = previous && previous.raw === seen.raw ? previous : seen;
  const heldByUs = current.holderIdentity === identity;
  const expiresAt = observation.at + current.leaseDurationSeconds * 1000;
  if (current.holderIdentity !== '' && !heldByUs && expiresAt > now) {
    return { decision: { action: 'wait', holder: current.holderIdentity, expiresAt }, observation };
  }
  const record = heldByUs
    ? { ...ours, acquireTime: current.acquireTime, leaseTransitions: current.leaseTransitions }
    : { ...ours, leaseTransitions: current.leaseTransitions + 1 };
  return { decision: { action: 'update', record }, observation };
}

/** Our renewal of `held` (the record we last wrote) at `now`: client-go's fast path keeps its acquire time and count. */
export function renewedRecord(
  held: LeaderElectionRecord,
  identity: string,
  leaseDurationSeconds: number,
  now: number,
): LeaderElectionRecord {
  return {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: held.acquireTime,
    renewTime: now,
    leaseTransitions: held.leaseTransitions,
  };
}

/** client-go's release (ReleaseOnCancel): an empty holder and a 1 s duration, so others take over at once. */
export function releasedRecord(held: LeaderElectionRecord, now: number): LeaderElectionRecord {
  return {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: held.leaseTransitions,
  };
}
