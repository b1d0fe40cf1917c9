// The HTTP methods KubeClient sends: the same strings as client-node's HttpMethod, which the runtime does not import
// (loading client-node costs the process memory and start-up CPU; see credentials.ts).
export const HttpMethod = {
  GET: 'GET',
  HEAD: 'HEAD',
  POST: 'POST',
  PUT: 'PUT',
  PATCH: 'PATCH',
  DELETE: 'DELETE',
} as const;

export type HttpMethod = (typeof HttpMethod)[keyof typeof HttpMethod];
