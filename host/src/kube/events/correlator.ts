// client-go's EventCorrelator, in its order: similar events with many distinct messages are aggregated (see
// aggregator.ts); identical events (same source, involved object, type, reason and message) become one Event whose
// count and lastTimestamp grow -- a PATCH instead of a new object; then a spam filter per object and event type
// (burst 25, then one per 5 minutes) stops a hot loop from flooding etcd. As upstream, an event is counted before
// the spam filter sees it, so the count the next written repeat carries includes the repeats dropped as spam.
import { type Clock, realClock } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';
import { type AggregatorOptions, EventAggregator } from './aggregator.ts';
import type { EventJson, EventPatch } from './event.ts';

export type { EventJson, EventPatch, EventType, ObjectReference } from './event.ts';

export type Correlation =
  | { action: 'create'; event: EventJson }
  | { action: 'patch'; event: EventJson; patch: EventPatch }
  | { action: 'drop'; why: 'spam' };

interface Seen {
  name: string;
  count: number;
  firstTimestamp: string;
}

export interface CorrelatorOptions {
  /** How many distinct events (and spam keys, and kinds of similar events) to remember (upstream: 4096). */
  cacheSize?: number;
  aggregation?: AggregatorOptions;
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

/** client-go's getSpamKey: the budget is per object and event type, so Normal events cannot use up a Warning's. */
export function spamKey(e: EventJson): string {
  const o = e.involvedObject;
  return [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type].join('\u0000');
}

export class EventCorrelator {
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly cacheSize: number;
  private readonly spamBurst: number;
  private readonly spamQps: number;
  private readonly clock: Clock;
  private readonly aggregator: EventAggregator;

  constructor(options: CorrelatorOptions = {}) {
    this.cacheSize = options.cacheSize ?? 4096;
    this.spamBurst = options.spamBurst ?? 25;
    this.spamQps = options.spamQps ?? 1 / 300;
    this.clock = options.clock ?? realClock;
    this.aggregator = new EventAggregator(this.clock, { cacheSize: this.cacheSize, ...options.aggregation });
  }

  /** Decides whether `event` (count 1, fresh name) is created, merged into an earlier one, or dropped. */
  correlate(incoming: EventJson): Correlation {
    const { event, aggregateKey } = this.aggregator.aggregate(incoming);
    const correlation = this.observe(event, aggregateKey ?? eventKey(event));
    if (!this.spamBucket(spamKey(correlation.event)).tryAccept()) return { action: 'drop', why: 'spam' };
    return correlation;
  }

  private observe(event: EventJson, key: string): Exclude<Correlation, { action: 'drop' }> {
    const last = this.remember(key);
    if (!last) {
      this.store(key, {
        name: event.metadata.name,
        count: 1,
        firstTimestamp: event.firstTimestamp,
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

  /**
   * Records what the apiserver stored (its name and count win, e.g. after a re-create). Keyed by the stored Event's
   * own key, as client-go's updateState: an aggregate Event keeps being deduplicated under its aggregate key.
   */
  update(stored: EventJson): void {
    const key = eventKey(stored);
    const last = this.seen.get(key);
    this.store(key, {
      name: stored.metadata.name,
      count: stored.count,
      firstTimestamp: last?.firstTimestamp ?? stored.firstTimestamp,
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
