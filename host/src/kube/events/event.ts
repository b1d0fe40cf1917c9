// core/v1 Event as the recorder writes it, and the PATCH that repeats it.
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
