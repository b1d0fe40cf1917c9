// Patches with the right Content-Type. client-node's generated patch* calls send application/json-patch+json
// unless told otherwise, which turns an intended merge patch into a 400 or, worse, a silently different request.
import {
  type ConfigurationOptions,
  type ObservableMiddleware,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

export type PatchType = 'merge' | 'strategic-merge' | 'json' | 'apply';

export const PATCH_CONTENT_TYPE: Record<PatchType, PatchStrategy> = {
  merge: PatchStrategy.MergePatch,
  'strategic-merge': PatchStrategy.StrategicMergePatch,
  json: PatchStrategy.JsonPatch,
  apply: PatchStrategy.ServerSideApply,
};

/**
 * Call options for a generated client's patch* method, e.g.
 * `core.patchNode({ name, body }, patchOptions('merge'))`.
 */
export function patchOptions(
  type: PatchType,
  options?: ConfigurationOptions<ObservableMiddleware>,
): ConfigurationOptions<ObservableMiddleware> {
  return setHeaderOptions('Content-Type', PATCH_CONTENT_TYPE[type], options);
}
