// client-go's EventAggregator: events of one object that differ only in their message are "similar" (same source,
// involved object, type, reason and reporting controller/instance). Once an object has had 10 distinct messages of
// one kind within 10 minutes of the previous similar event, each further distinct message is recorded as one
// aggregate Event, "(combined from similar events): <message>", whose count grows instead of a new Event per message.
import type { Clock } from '../clock.ts';
import type { EventJson } from './event.ts';

export const AGGREGATE_MESSAGE_PREFIX = '(combined from similar events): ';

export interface AggregatorOptions {
  /** Distinct messages within the window from which similar events are combined (upstream: 10). */
  maxEvents?: number;
  /** How long after the last similar event the messages seen are forgotten (upstream: 600 s). */
  maxIntervalMs?: number;
  /** How many kinds of similar events to remember (upstream: 4096, least recently used forgotten). */
  cacheSize?: number;
}

export interface Aggregation {
  event: EventJson;
  /** The key the aggregate Event is deduplicated under; absent when the event stays as it is. */
  aggregateKey?: string;
}

interface AggregateRecord {
  messages: Set<string>;
  last: number;
}

/** What makes events similar: everything client-go's EventAggregatorByReasonFunc keys on except the message. */
export function aggregateKey(e: EventJson): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ].join('\u0000');
}

export class EventAggregator {
  private readonly records = new Map<string, AggregateRecord>();
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;
  private readonly cacheSize: number;
  private readonly clock: Clock;

  constructor(clock: Clock, options: AggregatorOptions = {}) {
    this.clock = clock;
    this.maxEvents = options.maxEvents ?? 10;
    this.maxIntervalMs = options.maxIntervalMs ?? 600_000;
    this.cacheSize = options.cacheSize ?? 4096;
  }

  aggregate(event: EventJson): Aggregation {
    const now = this.clock.now();
    const key = aggregateKey(event);
    let record = this.records.get(key);
    this.records.delete(key);
    if (!record || now - record.last > this.maxIntervalMs) record = { messages: new Set(), last: now };
    record.messages.add(event.message);
    record.last = now;
    this.remember(key, record);
    if (record.messages.size < this.maxEvents) return { event };
    // Keep the set at its limit. client-go drops an arbitrary message (Go map order); the oldest is dropped here,
    // which is one of the orders upstream can take and keeps tests deterministic.
    const oldest = record.messages.values().next().value;
    if (oldest !== undefined) record.messages.delete(oldest);
    // Like client-go's aggregate copy: a fresh Event without the reporting controller and instance.
    return {
      event: {
        ...event,
        message: AGGREGATE_MESSAGE_PREFIX + event.message,
        count: 1,
        reportingComponent: '',
        reportingInstance: '',
      },
      aggregateKey: key,
    };
  }

  private remember(key: string, record: AggregateRecord): void {
    this.records.set(key, record);
    if (this.records.size > this.cacheSize) {
      const oldest = this.records.keys().next().value;
      if (oldest !== undefined) this.records.delete(oldest);
    }
  }
}
