// The wasm-ccm host functions (`extism:host/user`) as the guest sees them from inside its worker. ccm_http,
// ccm_http_bytes and ccm_sleep_ms suspend the guest (JSPI: WebAssembly.Suspending imports, the exports called through
// WebAssembly.promising in guest-runner.ts) instead of blocking the thread: ccm_http and ccm_http_bytes hand the
// request to the main thread through the instance's channel and resume the guest when the answer is there, so the
// HTTP client and the credentials stay on the main thread while the worker's other instances run meanwhile.
// Both hand it a ccm_http_bytes frame: ccm_http's JSON is parsed, checked and turned into a frame here, and the answer
// frame back into JSON (broker/http-json.ts), on the plugin's thread rather than the main one. ccm_log hands the
// record's bytes on as they are, without waiting for anyone. ccm_input_read, ccm_http_bytes and ccm_http_answer_read
// move bytes straight between the guest's linear memory and the host, one host call each. ccm_sleep_ms resumes the
// guest after a timer; the call's deadline ends a sleeping instance like a running one.
import { setTimeout as delay } from 'node:timers/promises';
import type { CallContext, ExtismPluginOptions } from '@extism/extism';
import { Channel, ChannelState, HostRequestKind } from '../channel.ts';
import { errorFrame } from '../../broker/http-frame.ts';
import { frameOfJsonRequest, jsonError, jsonOfAnswerFrame } from '../../broker/http-json.ts';
import { GuestArgumentError } from './guest-faults.ts';
import type { GuestKernel, HeldBytes } from './guest-kernel.ts';
import type { LogLevel, LogSource } from '../log-buffer.ts';

/** A record as the guest wrote it: `text` a string, or its UTF-8 bytes (ccm_log's, a LogRecord JSON document). */
export interface GuestLogRecord {
  source: LogSource;
  level: LogLevel;
  text: string | Uint8Array;
}

export interface HostFunctionContext {
  channel: Channel;
  kernel: GuestKernel;
  maxHttpRequestBytes: number;
  log: (record: GuestLogRecord) => void;
  /** Whether a call is under way: the imports that suspend serve calls only (not the module's start function). */
  inCall: () => boolean;
}

// The function type js-sdk's `functions` option takes (its arguments are typed loosely there).
type HostFunction = NonNullable<ExtismPluginOptions['functions']>[string][string];

type HttpErrorAnswer = (code: string, message: string) => Uint8Array;

const tooLargeRequest = (bytes: number, limit: number): [string, string] => [
  'TooLarge',
  `request of ${bytes} bytes is above the limit of ${limit}`,
];
const OVER_BUDGET: [string, string] = [
  'TooLarge',
  'the answer does not fit the kernel memory budget left for this call',
];

/** The longest pause one ccm_sleep_ms call takes; the call's deadline usually ends it sooner. */
export const MAX_SLEEP_MS = 60_000;

/** The imports that suspend the guest: served by suspendingImport-wrapped functions returning promises. */
export const SUSPENDING_IMPORTS: ReadonlySet<string> = new Set(['ccm_http', 'ccm_http_bytes', 'ccm_sleep_ms']);

/**
 * What a suspending import answers once the call is over (its deadline passed, its instance closed): a promise that
 * never settles, so the guest is never resumed; its stack goes with the slot. A fresh one each time: reactions on a
 * shared one would keep every abandoned stack alive.
 */
function abandoned(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/**
 * `fn` as js-sdk must install it for the guest to suspend on it. js-sdk puts `fn.bind(null, context)` in the import
 * object (createForegroundPlugin); a suspending import has to be a WebAssembly.Suspending there, so this function's
 * bind makes one around the bound function.
 */
export function suspendingImport<F extends (...args: never[]) => unknown>(fn: F): F {
  const bind = (thisArg: unknown, ...bound: unknown[]): unknown =>
    new WebAssembly.Suspending(Function.prototype.bind.call(fn, thisArg, ...bound) as () => Promise<unknown>);
  return Object.assign((...args: Parameters<F>) => fn(...args), { bind }) as unknown as F;
}

export function createHostFunctions(host: HostFunctionContext): Record<string, HostFunction> {
  const { channel, kernel } = host;
  // Checked before the promise is made, so that the guard (guest-faults.ts) records the refusal as it happens.
  const duringCall =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (!host.inCall()) throw new GuestArgumentError(`${name} serves calls only, not the module's start function`);
      return fn(...args);
    };
  // Both HTTP imports: a request frame to the main thread, an answer frame back (or one made here). The frame is in
  // the channel before the first await: it may be a view of guest memory, valid only until the guest runs again.
  // The main thread's answer stays in the channel: its length is what resolves. Nothing writes the channel's payload
  // until this guest's next host request, so it can be read from there until then.
  const send = async (frame: Uint8Array): Promise<Uint8Array | number> => {
    if (frame.byteLength > host.maxHttpRequestBytes) {
      return errorFrame(...tooLargeRequest(frame.byteLength, host.maxHttpRequestBytes));
    }
    if (!channel.reserve(frame.byteLength)) return errorFrame('TooLarge', 'request does not fit the channel');
    // An answer not read yet that is still in the payload (a ccm_http between ccm_http_bytes and its read) is copied
    // out before the payload is written over.
    kernel.settleHeld();
    channel.payload.set(frame, 0);
    channel.length = frame.byteLength;
    channel.kind = HostRequestKind.httpBytes;
    channel.publish(ChannelState.hostRequest);
    while (channel.state === ChannelState.hostRequest) await channel.waitChange(ChannelState.hostRequest);
    // Back to "running a call"; nobody waits for this value, so no wake-up. Unless the main thread said `dead`
    // meanwhile (the instance taken out of service): then the guest is not resumed.
    if (!channel.exchange(ChannelState.hostReply, ChannelState.call)) return abandoned();
    return channel.length;
  };
  const exchange = async (frame: Uint8Array): Promise<Uint8Array> => {
    const answer = await send(frame);
    return typeof answer === 'number' ? channel.copyOut(0, answer) : answer;
  };
  // The answer's bytes where the main thread wrote them, copied once, into the guest's memory (ccm_http_answer_read):
  // a copy out of the channel first was a fresh buffer of the answer's size per request, page faults included.
  const inChannel = (length: number): HeldBytes => ({
    byteLength: length,
    copyTo: (target) => channel.copyTo(target, 0, target.byteLength),
  });
  // What the guest gets is charged against the call's kernel budget, in the import's own format.
  const charged = (answer: Uint8Array, errorAnswer: HttpErrorAnswer): Uint8Array =>
    kernel.tryCharge(answer.byteLength) ? answer : errorAnswer(...OVER_BUDGET);
  // ccm_http: the JSON request is checked and framed here, the answer frame turned into JSON here.
  const jsonExchange = async (request: Uint8Array): Promise<Uint8Array> => {
    if (request.byteLength > host.maxHttpRequestBytes) {
      return jsonError(...tooLargeRequest(request.byteLength, host.maxHttpRequestBytes));
    }
    const frame = frameOfJsonRequest(request);
    return frame instanceof Uint8Array
      ? jsonOfAnswerFrame(await exchange(frame))
      : jsonError(frame.code, frame.message);
  };

  return {
    ccm_http: duringCall('ccm_http', async (context: CallContext, requestAddress: bigint): Promise<bigint> =>
      context.store(charged(await jsonExchange(kernel.blockBytes(context, requestAddress)), jsonError)),
    ),
    // ABI 1.3: the request frame (broker/http-frame.ts) is read out of the guest's memory; the answer frame is held
    // until ccm_http_answer_read copies it in, and its length returned. Pointers are i32: plugins are wasm32.
    ccm_http_bytes: duringCall(
      'ccm_http_bytes',
      async (_context: CallContext, address: number, length: number): Promise<number> => {
        const sent = await send(kernel.guestBytes('ccm_http_bytes', address, length));
        let held: Uint8Array | HeldBytes;
        if (typeof sent !== 'number') held = charged(sent, errorFrame);
        else held = kernel.tryCharge(sent) ? inChannel(sent) : errorFrame(...OVER_BUDGET);
        kernel.hold(held);
        return held.byteLength;
      },
    ),
    ccm_http_answer_read: (_context: CallContext, address: number, length: number): void => {
      kernel.readHeld('ccm_http_answer_read', address, length);
    },
    // A view of the kernel block: log() copies what it keeps before the guest runs again.
    ccm_log: (context: CallContext, recordAddress: bigint): void => {
      host.log({ source: 'ccm_log', level: 'info', text: kernel.blockBytes(context, recordAddress) });
    },
    ccm_now_ms: (): bigint => BigInt(Date.now()),
    // ABI 1.4: an i32 of milliseconds (a negative one is no pause).
    // The state says `sleeping` meanwhile: at the deadline the main thread swaps it to `dead` and the pause never
    // returns, so the instance is closed alone rather than its worker stopped.
    ccm_sleep_ms: duringCall('ccm_sleep_ms', async (_context: CallContext, ms: number): Promise<void> => {
      const pause = Math.min(Math.max(Math.trunc(ms), 0), MAX_SLEEP_MS);
      if (pause === 0) return;
      if (!channel.swap(ChannelState.call, ChannelState.sleeping)) return abandoned();
      await delay(pause);
      if (!channel.swap(ChannelState.sleeping, ChannelState.call)) return abandoned();
    }),
    // ABI 1.1: the whole input in one call (as-pdk moves it 8 bytes per host call). Pointers are i32: plugins are wasm32.
    ccm_input_read: (_context: CallContext, address: number, length: number): void => {
      kernel.inputRead(address, length);
    },
  };
}
