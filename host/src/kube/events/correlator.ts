// client-go's EventCorrelator, reduced to what the CCM needs: identical events (same source, involved object,
// type, reason and message) become one Event whose count and lastTimestamp grow -- a PATCH instead of a new
// object -- and a per-object spam filter (burst 25, then one per 5 minutes) stops a hot loop from flooding etcd.
// Upstream's aggregation of similar events with different messages is not reproduced.
import { type Clock, realClock } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';
import type { WireObjectMeta } from '../client/wire.ts';

export type EventType = 'Normal' | 'Warning';

export interface ObjectReference {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 Event as JSON. */
export interface EventJson {
  apiVersion?: 'v1';
  kind?: 'Event';
  metadata: WireObjectMeta & { name: string; namespace: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: EventType;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string; host?: string };
  reportingComponent: string;
  reportingInstance: string;
}

export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export type Correlation =
  | { action: 'create'; event: EventJson }
  | { action: 'patch'; event: EventJson; patch: EventPatch }
  | { action: 'drop'; why: 'spam' };

interface Seen {
  name: string;
  count: number;
  firstTimestamp: string;
  resourceVersion: string | undefined;
}

export interface CorrelatorOptions {
  /** How many distinct events to remember for deduplication (upstream: 4096). */
  cacheSize?: number;
  spamBurst?: number;
  spamQps?: number;
  clock?: Clock;
}

function eventKey(e: EventJson): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ].join('\u0000');
}

function spamKey(e: EventJson): string {
  const o = e.involvedObject;
  return [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].join('\u0000');
}

export class EventCorrelator {
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly cacheSize: number;
  private readonly spamBurst: number;
  private readonly spamQps: number;
  private readonly clock: Clock;

  constructor(options: CorrelatorOptions = {}) {
    this.cacheSize = options.cacheSize ?? 4096;
    this.spamBurst = options.spamBurst ?? 25;
    this.spamQps = options.spamQps ?? 1 / 300;
    this.clock = options.clock ?? realClock;
  }

  /** Decides whether `event` (count 1, fresh name) is created, merged into an earlier one, or dropped. */
  correlate(event: EventJson): Correlation {
    if (!this.spamBucket(spamKey(event)).tryAccept()) return { action: 'drop', why: 'spam' };
    const key = eventKey(event);
    const last = this.remember(key);
    if (!last) {
      this.store(key, {
        name: event.metadata.name,
        count: 1,
        firstTimestamp: event.firstTimestamp,
        resourceVersion: undefined,
      });
      return { action: 'create', event };
    }
    const merged: EventJson = {
      ...event,
      metadata: { ...event.metadata, name: last.name },
      count: last.count + 1,
      firstTimestamp: last.firstTimestamp,
    };
    this.store(key, { ...last, count: merged.count });
    return {
      action: 'patch',
      event: merged,
      patch: { count: merged.count, lastTimestamp: merged.lastTimestamp, message: merged.message },
    };
  }

  /** Records what the apiserver stored (its name and count win, e.g. after a re-create). */
  update(stored: EventJson): void {
    const key = eventKey(stored);
    const last = this.seen.get(key);
    this.store(key, {
      name: stored.metadata.name,
      count: stored.count,
      firstTimestamp: last?.firstTimestamp ?? stored.firstTimestamp,
      resourceVersion: stored.metadata.resourceVersion,
    });
  }

  private remember(key: string): Seen | undefined {
    const last = this.seen.get(key);
    if (last) {
      // Refresh recency: Map iteration order is insertion order, so re-inserting keeps it an LRU.
      this.seen.delete(key);
      this.seen.set(key, last);
    }
    return last;
  }

  private store(key: string, value: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, value);
    while (this.seen.size > this.cacheSize) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
  }

  private spamBucket(key: string): TokenBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.spamQps, this.spamBurst, this.clock);
      this.buckets.set(key, bucket);
      // Forget the least recently created buckets beyond the cache size; a full bucket carries no history anyway.
      if (this.buckets.size > this.cacheSize) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    }
    return bucket;
  }
}
