// An HTTP answer collected whole, for callers that only ever want the complete body (the kube client's JSON
// requests, the plugin HTTP broker): its shape and options, which the HTTP/1.1 pool (net/http1) resolves to. The
// pool is the transport of both; dispatchCollect does the same over an undici dispatcher, for a cluster reached
// through the dispatcher client-node builds (a proxy). undici's request() wraps every response in a Readable stream
// and its body.text() reads it back through the stream machinery; a dispatch handler of our own skips both, which
// takes a visible share off the CPU per request (bench/http1-client.ts measures the client per request).
import type { Dispatcher } from 'undici';

export interface CollectedResponse {
  statusCode: number;
  /** Lower-case names; a repeated header as an array of its values (net/http1: a map without a prototype). */
  headers: Record<string, string | string[] | undefined>;
  /** The body as it arrived; empty when `discardBody` and the status is below 300. */
  chunks: Buffer[];
}

export interface CollectOptions {
  /** Aborting settles at once with `onAbort()`'s error, even for a request still queued for a connection. */
  signal?: AbortSignal | undefined;
  /** The error an abort rejects with; default the signal's reason. */
  onAbort?: () => Error;
  /** A body above this many bytes aborts the exchange (closing the connection) with `tooLarge(max)`. */
  maxBytes?: number;
  tooLarge?: (maxBytes: number) => Error;
  /** Drop a successful (< 300) answer's body as it arrives (the caller only wants the status); an error's is kept. */
  discardBody?: boolean;
}

export function dispatchCollect(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  options: CollectOptions = {},
): Promise<CollectedResponse> {
  const { signal, maxBytes = Infinity, discardBody = false } = options;
  return new Promise<CollectedResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let statusCode = 0;
    let headers: CollectedResponse['headers'] = {};
    let control: Dispatcher.DispatchController | undefined;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (err: Error): void => {
      if (settle()) reject(err);
    };
    const abortError = (): Error => options.onAbort?.() ?? (signal?.reason as Error);
    function onAbort(): void {
      const err = abortError();
      fail(err);
      control?.abort(err);
    }
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (controller) => {
        control = controller;
        if (settled) controller.abort(abortError());
      },
      onResponseStart: (_controller, code, headersIn) => {
        statusCode = code;
        headers = headersIn;
      },
      onResponseData: (controller, chunk) => {
        received += chunk.byteLength;
        if (received > maxBytes) {
          const err = options.tooLarge?.(maxBytes) ?? new Error(`response larger than ${maxBytes} bytes`);
          fail(err);
          controller.abort(err);
          return;
        }
        if (!discardBody || statusCode >= 300) chunks.push(chunk);
      },
      onResponseEnd: () => {
        if (settle()) resolve({ statusCode, headers, chunks });
      },
      onResponseError: (_controller, err) => fail(err),
    };
    try {
      dispatcher.dispatch(request, handler);
    } catch (err) {
      fail(err as Error);
    }
  });
}

/** The collected body as text (UTF-8); one chunk is decoded without a copy. */
export function bodyText(chunks: readonly Buffer[]): string {
  if (chunks.length === 0) return '';
  if (chunks.length === 1) return (chunks[0] as Buffer).toString('utf8');
  return Buffer.concat(chunks).toString('utf8');
}
