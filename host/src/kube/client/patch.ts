// Patches with the right Content-Type: a merge patch sent as application/json-patch+json (client-node's default for
// its generated patch* calls) is a 400 or, worse, a silently different request.
export type PatchType = 'merge' | 'strategic-merge' | 'json' | 'apply';

export const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  'strategic-merge': 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};
