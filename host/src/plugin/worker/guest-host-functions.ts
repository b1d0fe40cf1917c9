// The wasm-ccm host functions (`extism:host/user`) as the guest sees them from inside its worker. They are
// synchronous (Extism foreground mode): ccm_http and ccm_http_bytes hand the request to the main thread through the
// channel and block until the answer is there, so the HTTP client and the credentials stay on the main thread.
// ccm_log posts the record without waiting for anyone. ccm_input_read, ccm_http_bytes and ccm_http_answer_read move
// bytes straight between the guest's linear memory and the host, one host call each.
import type { CallContext, ExtismPluginOptions } from '@extism/extism';
import { Channel, ChannelState, HostRequestKind } from '../channel/channel.ts';
import { errorFrame } from '../http/http-frame.ts';
import type { GuestKernel } from './guest-kernel.ts';
import type { LogMessage } from './worker-protocol.ts';

export interface HostFunctionContext {
  channel: Channel;
  kernel: GuestKernel;
  maxHttpRequestBytes: number;
  maxLogRecordBytes: number;
  log: (message: Omit<LogMessage, 'type' | 'exportName'>) => void;
}

const encoder = new TextEncoder();

// The function type js-sdk's `functions` option takes (its arguments are typed loosely there).
type HostFunction = NonNullable<ExtismPluginOptions['functions']>[string][string];

type HttpErrorAnswer = (code: string, message: string) => Uint8Array;
const jsonError: HttpErrorAnswer = (code, message) => encoder.encode(JSON.stringify({ error: { code, message } }));

export function createHostFunctions(host: HostFunctionContext): Record<string, HostFunction> {
  const { channel, kernel } = host;
  // Both HTTP imports: the same hand-over, told apart by `kind`; the answers made here are in the import's own format.
  const exchange = (request: Uint8Array, kind: number, errorAnswer: HttpErrorAnswer): Uint8Array => {
    if (request.byteLength > host.maxHttpRequestBytes) {
      return errorAnswer(
        'TooLarge',
        `request of ${request.byteLength} bytes is above the limit of ${host.maxHttpRequestBytes}`,
      );
    }
    if (!channel.reserve(request.byteLength)) return errorAnswer('TooLarge', 'request does not fit the channel');
    channel.payload.set(request, 0);
    channel.length = request.byteLength;
    channel.kind = kind;
    channel.publish(ChannelState.hostRequest);
    channel.waitWhile(ChannelState.hostRequest);
    const answer = channel.copyOut(0, channel.length);
    // Back to "running a call"; nobody waits for this value, so no wake-up.
    channel.set(ChannelState.call);
    if (!kernel.tryCharge(answer.byteLength)) {
      return errorAnswer('TooLarge', 'the answer does not fit the kernel memory budget left for this call');
    }
    return answer;
  };

  return {
    ccm_http: (context: CallContext, requestAddress: bigint): bigint =>
      context.store(exchange(kernel.blockBytes(context, requestAddress), HostRequestKind.http, jsonError)),
    // ABI 1.3: the request frame (http/http-frame.ts) is read out of the guest's memory; the answer frame is held
    // until ccm_http_answer_read copies it in, and its length returned. Pointers are i32: plugins are wasm32.
    ccm_http_bytes: (_context: CallContext, address: number, length: number): number => {
      const request = kernel.guestBytes('ccm_http_bytes', address, length);
      const answer = exchange(request, HostRequestKind.httpBytes, errorFrame);
      kernel.hold(answer);
      return answer.byteLength;
    },
    ccm_http_answer_read: (_context: CallContext, address: number, length: number): void => {
      kernel.readHeld('ccm_http_answer_read', address, length);
    },
    ccm_log: (context: CallContext, recordAddress: bigint): void => {
      const bytes = kernel.blockBytes(context, recordAddress);
      // Decoding is capped: a record over the size limit is dropped by log() anyway.
      const text = new TextDecoder().decode(bytes.subarray(0, host.maxLogRecordBytes + 1));
      host.log({ source: 'ccm_log', level: 'info', text });
    },
    ccm_now_ms: (): bigint => BigInt(Date.now()),
    // ABI 1.1: the whole input in one call (as-pdk moves it 8 bytes per host call). Pointers are i32: plugins are wasm32.
    ccm_input_read: (_context: CallContext, address: number, length: number): void => {
      kernel.inputRead(address, length);
    },
  };
}
