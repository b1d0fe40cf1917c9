// Which Events a parity comparison counts: those of the CCM under test, not the apiserver's own controllers.
import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';

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

/** The distinct reasons of the Events a CCM wrote, of those listed, sorted (counts and timing differ between runs). */
export function ccmEventReasons(events: readonly CoreV1Event[]): string[] {
  return [...new Set(ccmEvents(events).map((e) => e.reason ?? ''))].sort();
}

/** The distinct reasons of the Events a CCM wrote about the Node `name`, in any namespace. */
export async function nodeEventReasons(core: CoreV1Api, name: string): Promise<string[]> {
  const list = await core.listEventForAllNamespaces({
    fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}`,
  });
  return ccmEventReasons(list.items);
}
