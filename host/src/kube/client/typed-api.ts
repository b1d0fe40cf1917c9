// Generated client-node API classes (CoreV1Api, CoordinationV1Api, ...) whose requests go through a KubeClient: its
// rate limiter, metrics, connection pools and credentials. The CCM itself makes raw requests only; this is for tests
// and tools, and loads client-node for them. client-node 2.0.1's makeApiClient builds a Configuration without an
// `httpApi` hook, so build the Configuration here.
import {
  type ApiConstructor,
  type ApiType,
  type ConfigurationOptions,
  createConfiguration,
  IsomorphicFetchHttpLibrary,
  type ObservableMiddleware,
  ServerConfiguration,
  setHeaderMiddleware,
  setHeaderOptions,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
import type { KubeClient } from './client.ts';
import { PATCH_CONTENT_TYPE, type PatchType } from './patch.ts';

export function typedApi<T extends ApiType>(client: KubeClient, apiClass: ApiConstructor<T>): T {
  const inner = new IsomorphicFetchHttpLibrary();
  const httpApi = wrapHttpLibrary({
    send: (ctx) =>
      client.sendTyped(ctx.getHttpMethod(), ctx.getUrl(), ctx.getSignal(), (dispatcher, headers) => {
        for (const [name, value] of Object.entries(headers)) ctx.setHeaderParam(name, value);
        ctx.setDispatcher(dispatcher as NonNullable<ReturnType<typeof ctx.getDispatcher>>);
        return inner.send(ctx).toPromise();
      }),
  });
  return new apiClass(
    createConfiguration({
      baseServer: new ServerConfiguration(client.server, {}),
      httpApi,
      middleware: [setHeaderMiddleware('User-Agent', client.userAgent)],
    }),
  );
}

/**
 * Call options for a generated client's patch* method, e.g. `core.patchNode({ name, body }, patchOptions('merge'))`:
 * its patch calls send application/json-patch+json unless told otherwise.
 */
export function patchOptions(
  type: PatchType,
  options?: ConfigurationOptions<ObservableMiddleware>,
): ConfigurationOptions<ObservableMiddleware> {
  return setHeaderOptions('Content-Type', PATCH_CONTENT_TYPE[type], options);
}
