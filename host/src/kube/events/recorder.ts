// Records core/v1 Events about objects, like client-go's EventRecorder + broadcaster: recordEvent() never blocks
// and never throws; events go into a bounded queue (full -> dropped and counted) that one worker writes to the
// apiserver in order, deduplicated by the correlator (a repeat becomes a PATCH of count/lastTimestamp).
// Events about cluster-scoped objects (Nodes) go to namespace "default", as upstream. Each Event recorded is also
// logged as "Event occurred" at verbosity 0, as the cloud controllers' broadcasters log them (StartStructuredLogging(0)),
// before the spam filter.
import { HttpMethod } from '../client/http-method.ts';
import type { KubeClient } from '../client/client.ts';
import { apiErrorInfo, isNotFound } from '../client/errors.ts';
import type { KubeObject } from '../client/wire.ts';
import { type Clock, realClock, sleep } from '../clock.ts';
import { type Logger, silentLogger, type VerboseLogger } from '../../log/logger.ts';
import {
  type Correlation,
  type CorrelatorOptions,
  EventCorrelator,
  type EventJson,
  type EventPatch,
  type EventType,
} from './correlator.ts';

export interface EventSink {
  create(event: EventJson): Promise<EventJson>;
  patch(namespace: string, name: string, patch: EventPatch): Promise<EventJson>;
}

export function kubeEventSink(client: KubeClient): EventSink {
  const collection = (ns: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/events`;
  return {
    // The apiserver stores a created Event as sent, adding only metadata the correlator does not read (uid,
    // resourceVersion, creationTimestamp, managedFields): the answer is not parsed, the Event sent stands for it.
    create: async (event) => {
      await client.request<void>({
        method: HttpMethod.POST,
        path: collection(event.metadata.namespace),
        body: event,
        ignoreResponse: true,
      });
      return event;
    },
    patch: (namespace, name, patch) =>
      client.patch<EventJson>(`${collection(namespace)}/${encodeURIComponent(name)}`, patch, 'strategic-merge'),
  };
}

export interface EventRecorderOptions {
  sink: EventSink;
  /** The source component, e.g. "cloud-node-controller". */
  component: string;
  /** source.host / reportingInstance (upstream: the hostname). */
  host?: string;
  /** Pending events beyond this are dropped (upstream broadcaster: 1000). */
  queueSize?: number;
  /** Attempts per event for transport errors, 429 and 5xx (upstream: 12). */
  maxTries?: number;
  retryDelayMs?: number;
  correlator?: CorrelatorOptions;
  clock?: Clock;
  logger?: Logger;
}

interface Pending {
  ref: EventJson['involvedObject'];
  type: EventType;
  reason: string;
  message: string;
  at: number;
}

export class EventRecorder {
  private readonly sink: EventSink;
  private readonly component: string;
  private readonly host: string;
  private readonly queueSize: number;
  private readonly maxTries: number;
  private readonly retryDelayMs: number;
  private readonly correlator: EventCorrelator;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly eventLog: VerboseLogger;
  private readonly queue: Pending[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private readonly stopController = new AbortController();
  private working = false;
  private lastNanos = 0n;
  readonly stats = { recorded: 0, created: 0, patched: 0, dropped: 0, failed: 0 };

  constructor(options: EventRecorderOptions) {
    this.sink = options.sink;
    this.component = options.component;
    this.host = options.host ?? '';
    this.queueSize = options.queueSize ?? 1000;
    this.maxTries = options.maxTries ?? 12;
    this.retryDelayMs = options.retryDelayMs ?? 10_000;
    this.clock = options.clock ?? realClock;
    this.correlator = new EventCorrelator({ clock: this.clock, ...options.correlator });
    this.log = (options.logger ?? silentLogger).child({ component: this.component });
    // Every "Event occurred" record is made on one line (recordEvent), one per Event: its caller is looked up once.
    const logger = options.logger ?? silentLogger;
    this.eventLog = (logger.atOneSite?.() ?? logger).v(0);
  }

  /** Queues an Event about `object`. Returns at once; failures are logged, never thrown. */
  recordEvent(object: KubeObject, type: EventType, reason: string, message: string): void {
    try {
      const meta = object.metadata;
      if (!object.kind || !meta?.name) {
        this.log.warn('cannot record an event about an object without kind and name', { reason, message });
        this.stats.dropped++;
        return;
      }
      if (this.stopController.signal.aborted || this.queue.length >= this.queueSize) {
        this.stats.dropped++;
        this.log.warn('event dropped', { reason, object: meta.name, queued: this.queue.length });
        return;
      }
      this.stats.recorded++;
      if (this.eventLog.enabled) {
        this.eventLog.info('Event occurred', {
          object: meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name,
          fieldPath: '',
          kind: object.kind,
          apiVersion: object.apiVersion ?? '',
          type,
          reason,
          message,
        });
      }
      this.queue.push({
        ref: {
          kind: object.kind,
          ...(object.apiVersion ? { apiVersion: object.apiVersion } : {}),
          ...(meta.namespace ? { namespace: meta.namespace } : {}),
          name: meta.name,
          ...(meta.uid ? { uid: meta.uid } : {}),
          ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
        },
        type,
        reason,
        message,
        at: this.clock.now(),
      });
      if (!this.working) void this.work();
    } catch (err) {
      this.log.error('recordEvent failed', { error: err });
    }
  }

  /** Resolves once every queued event has been written or given up on. */
  flush(): Promise<void> {
    if (!this.working && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops accepting events; pending ones are still written unless `discard`. */
  async stop(discard = false): Promise<void> {
    if (discard) {
      this.stats.dropped += this.queue.length;
      this.queue.length = 0;
    }
    this.stopController.abort();
    await this.flush();
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        try {
          await this.write(next);
        } catch (err) {
          this.stats.failed++;
          this.log.error('event write crashed', { error: err });
        }
      }
    } finally {
      this.working = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async write(pending: Pending): Promise<void> {
    const correlation = this.correlator.correlate(this.makeEvent(pending));
    if (correlation.action === 'drop') {
      this.stats.dropped++;
      this.log.debug('event dropped by spam filter', { reason: pending.reason, object: pending.ref.name });
      return;
    }
    for (let attempt = 1; attempt <= this.maxTries; attempt++) {
      try {
        const stored = await this.send(correlation);
        this.correlator.update(stored);
        return;
      } catch (err) {
        const info = apiErrorInfo(err);
        const retriable = info.code === undefined || info.code === 429 || info.code >= 500;
        if (!retriable || attempt === this.maxTries || this.stopController.signal.aborted) {
          this.stats.failed++;
          this.log.warn('could not write event', {
            reason: pending.reason,
            object: pending.ref.name,
            error: info.message,
            code: info.code,
          });
          return;
        }
        // Upstream randomizes the first retry so replicas do not retry in lockstep.
        const delay = attempt === 1 ? Math.random() * this.retryDelayMs : this.retryDelayMs;
        await sleep(this.clock, delay, this.stopController.signal);
      }
    }
  }

  private async send(correlation: Exclude<Correlation, { action: 'drop' }>): Promise<EventJson> {
    const { event } = correlation;
    if (correlation.action === 'patch') {
      try {
        const stored = await this.sink.patch(event.metadata.namespace, event.metadata.name, correlation.patch);
        this.stats.patched++;
        return stored;
      } catch (err) {
        // The earlier Event expired (events have a TTL) or was deleted: create it anew with the running count.
        if (!isNotFound(err)) throw err;
      }
    }
    const { resourceVersion: _rv, ...metadata } = event.metadata;
    const stored = await this.sink.create({ ...event, metadata });
    this.stats.created++;
    return stored;
  }

  private makeEvent(p: Pending): EventJson {
    // metav1.Time: whole seconds.
    const time = new Date(Math.floor(p.at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    // client-go names events <object>.<unix nanos in hex>; nanos are kept strictly increasing here so two events
    // recorded within one clock tick never collide.
    let nanos = BigInt(Math.round(p.at * 1e6));
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${p.ref.name}.${nanos.toString(16)}`, namespace: p.ref.namespace || 'default' },
      involvedObject: p.ref,
      reason: p.reason,
      message: p.message,
      type: p.type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: this.component, ...(this.host ? { host: this.host } : {}) },
      reportingComponent: this.component,
      reportingInstance: this.host,
    };
  }
}
