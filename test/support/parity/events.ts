// Which Events a parity comparison counts: those of the CCM under test, not the apiserver's own controllers.
import type { CoreV1Event } from '@kubernetes/client-node';

/**
 * The apiserver's own controllers (ipallocator-repair-controller, portallocator-repair-controller): they act at their
 * own pace, as when a repair loop races a Service's creation and reports ClusterIPNotAllocated on it, in one run of a
 * pair and not the other.
 */
const APISERVER_COMPONENTS = /(^kube-apiserver$|repair-controller$)/;

/** Whether the Event comes from a controller of the apiserver rather than from a CCM. */
export function isApiserverEvent(e: CoreV1Event): boolean {
  return APISERVER_COMPONENTS.test(e.reportingComponent || e.source?.component || '');
}

/** The Events a CCM wrote, of those listed. */
export function ccmEvents(events: readonly CoreV1Event[]): CoreV1Event[] {
  return events.filter((e) => !isApiserverEvent(e));
}
