// An HTTP answer collected whole, for callers that only ever want the complete body (the kube client's JSON
// requests, the plugin HTTP broker): its shape and options, which the HTTP/1.1 pool (net/http1) resolves to. The
// pool is the transport of both; dispatchCollect does the same over an undici dispatcher, for a cluster reached
// through the dispatcher client-node builds (a proxy). undici's request() wraps every response in a Readable stream
// and its body.text() reads it back through the stream machinery; a dispatch handler of our own skips both, which
// takes a visible share off the CPU per request (bench/host/http1-client.ts measures the client per request).
import type { Dispatcher } from 'undici';

export interface CollectedResponse {
  statusCode: number;
  /** Lower-case names; a repeated header as an array of its values (net/http1: a map without a prototype). */
  headers: Record<string, string | string[] | undefined>;
  /** The body in a few buffers (BodyCollector); empty when `discardBody` and the status is below 300. */
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
    const body = new BodyCollector();
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
        if (!discardBody || statusCode >= 300) body.add(chunk);
      },
      onResponseEnd: () => {
        if (settle()) resolve({ statusCode, headers, chunks: body.finish() });
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

/** A chunk at least this long is kept as it arrived: its Buffer object is small beside its bytes. */
const KEPT_CHUNK_BYTES = 16 * 1024;
/** Smaller chunks are copied into pages of 16 KiB, then as large as the body so far, up to 1 MiB. */
const MIN_PAGE_BYTES = 16 * 1024;
const MAX_PAGE_BYTES = 1024 * 1024;

/**
 * A body collected in a few large buffers, whatever pieces it arrives in. Keeping every piece costs a Buffer object
 * (about 100 bytes of V8 heap) per piece: a server that answers in 1-byte chunks made 4 MiB of body take 450 MiB of
 * heap, and aborted a CCM running with the chart's 256 MiB. Here small pieces are copied into pages, so the body
 * takes about its own size (at most twice, in the pages' free space) and a few objects per page. The common body
 * that arrives in one piece, or in large ones, is kept without a copy.
 */
export class BodyCollector {
  readonly #chunks: Buffer[] = [];
  #page: Buffer | undefined;
  #used = 0;
  #bytes = 0;

  add(chunk: Buffer): void {
    const length = chunk.length;
    if (length === 0) return;
    this.#bytes += length;
    if (length >= KEPT_CHUNK_BYTES || (this.#chunks.length === 0 && this.#page === undefined)) {
      this.#seal();
      this.#chunks.push(chunk);
      return;
    }
    let from = 0;
    while (from < length) {
      if (this.#page === undefined || this.#used === this.#page.length) {
        this.#seal();
        this.#page ??= Buffer.allocUnsafeSlow(Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, this.#bytes)));
      }
      const copied = chunk.copy(this.#page, this.#used, from);
      this.#used += copied;
      from += copied;
    }
  }

  /** The body's buffers, in order. The collector is not used after this. */
  finish(): Buffer[] {
    this.#seal();
    this.#page = undefined;
    return this.#chunks;
  }

  // The page's bytes go into the body: the page itself when little of it is free, else a copy of its bytes (the
  // page is then reused), so that a body interleaving small and large pieces does not keep a page per small one.
  #seal(): void {
    const page = this.#page;
    if (page === undefined || this.#used === 0) return;
    const free = page.length - this.#used;
    if (free <= this.#used || free <= MIN_PAGE_BYTES / 4) {
      this.#chunks.push(page.subarray(0, this.#used));
      this.#page = undefined;
    } else {
      this.#chunks.push(Buffer.from(page.subarray(0, this.#used)));
    }
    this.#used = 0;
  }
}

/** The collected body as text (UTF-8); one chunk is decoded without a copy. */
export function bodyText(chunks: readonly Buffer[]): string {
  if (chunks.length === 0) return '';
  if (chunks.length === 1) return (chunks[0] as Buffer).toString('utf8');
  return Buffer.concat(chunks).toString('utf8');
}
