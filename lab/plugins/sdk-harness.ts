// Runs SDK test modules (plugin-sdk/tests/assembly/*.ts) under @extism/extism 1.0.3 the way the host does: foreground,
// fake ccm_http/ccm_log/ccm_now_ms under extism:host/user, ccm_input_read copying the call's input into the guest's
// memory, plugin.reset() after every call.
import { join } from 'node:path';
import createPlugin, { type CallContext, type ExtismPluginOptions, type Plugin } from '@extism/extism';
import { compileAssemblyScript, SDK_DIR } from '../../plugin-sdk/tools/compile.ts';

export const FIXTURES = join(SDK_DIR, 'tests', 'assembly');
const CACHE = join(SDK_DIR, 'tests', 'build');

/** Compiles a test module (cached across runs until a source changes); test providers may be partial on purpose. */
export async function compileFixture(name: string): Promise<Uint8Array> {
  const r = await compileAssemblyScript(join(FIXTURES, `${name}.ts`), {
    optimize: false,
    cacheDir: CACHE,
    checkCapabilities: false,
  });
  return r.wasm;
}

export class FakeHost {
  logs: unknown[] = [];
  httpRequests: unknown[] = [];
  /**
   * What ccm_http and ccm_http_bytes answer; gets the parsed request (for ccm_http_bytes its head with `body` as text
   * and `bodyBytes`). A `body` that is a Uint8Array goes as it is through ccm_http_bytes.
   */
  httpAnswer: (request: unknown) => unknown = () => ({ error: { code: 'Network', message: 'no network in tests' } });
  /** Replaces ccm_http_bytes' framing of the answer (malformed answers). */
  httpFrame: ((answer: unknown) => Uint8Array) | null = null;
  #pendingAnswer: Uint8Array = new Uint8Array(0);
  nowMs = 1_700_000_000_123n;
  /** The pauses the guest asked for through ccm_sleep_ms, in order. */
  readonly sleeps: number[] = [];
  /** The input of the call in progress and the guest's memory, for ccm_input_read. */
  input: Uint8Array = new Uint8Array(0);
  memory: WebAssembly.Memory | null = null;

  #guestBytes(address: number, length: number): Uint8Array {
    if (this.memory === null) throw new Error('a pointer host function before the memory is known');
    return new Uint8Array(this.memory.buffer, address, length);
  }

  functions(): NonNullable<ExtismPluginOptions['functions']> {
    return {
      'extism:host/user': {
        ccm_input_read: (_ctx: CallContext, address: number, length: number) => {
          this.#guestBytes(address, length).set(this.input.subarray(0, length));
        },
        ccm_log: (ctx: CallContext, offset: bigint) => {
          this.logs.push(ctx.read(offset)!.json());
        },
        ccm_http: (ctx: CallContext, offset: bigint) => {
          const request: unknown = ctx.read(offset)!.json();
          this.httpRequests.push(request);
          return ctx.store(JSON.stringify(this.httpAnswer(request)));
        },
        ccm_http_bytes: (_ctx: CallContext, address: number, length: number): number => {
          const frame = this.#guestBytes(address, length).slice();
          const headLength = new DataView(frame.buffer).getUint32(0, true);
          const head = JSON.parse(new TextDecoder().decode(frame.subarray(4, 4 + headLength))) as object;
          const bodyBytes = frame.subarray(4 + headLength);
          const request = { ...head, body: new TextDecoder().decode(bodyBytes), bodyBytes };
          this.httpRequests.push(request);
          const answer = this.httpAnswer(request);
          this.#pendingAnswer = this.httpFrame !== null ? this.httpFrame(answer) : frameAnswer(answer);
          return this.#pendingAnswer.byteLength;
        },
        ccm_http_answer_read: (_ctx: CallContext, address: number, length: number) => {
          this.#guestBytes(address, length).set(this.#pendingAnswer.subarray(0, length));
        },
        ccm_now_ms: () => this.nowMs,
        // The fake clock moves by the pause, as the real one would; the test does not wait.
        ccm_sleep_ms: (_ctx: CallContext, ms: number) => {
          this.sleeps.push(ms);
          this.nowMs += BigInt(Math.max(ms, 0));
        },
      },
    };
  }
}

/** An answer as ccm_http_bytes frames it: [u32 LE head length][head JSON][body bytes]. */
export function frame(head: unknown, body: Uint8Array | string = ''): Uint8Array {
  const headBytes = new TextEncoder().encode(JSON.stringify(head));
  const bodyBytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const out = new Uint8Array(4 + headBytes.byteLength + bodyBytes.byteLength);
  new DataView(out.buffer).setUint32(0, headBytes.byteLength, true);
  out.set(headBytes, 4);
  out.set(bodyBytes, 4 + headBytes.byteLength);
  return out;
}

function frameAnswer(answer: unknown): Uint8Array {
  const { body, ...head } = answer as { body?: string | Uint8Array };
  return frame(head, body ?? '');
}

export interface TestPlugin {
  plugin: Plugin;
  host: FakeHost;
  /** Calls an export; returns its output as text ('' when it wrote none). */
  call(fn: string, input?: string | Uint8Array | object): Promise<string>;
  /** Calls an export and parses its output as JSON. */
  json(fn: string, input?: string | Uint8Array | object): Promise<unknown>;
}

export async function load(wasm: Uint8Array, host = new FakeHost()): Promise<TestPlugin> {
  const plugin = await createPlugin({ wasm: [{ data: wasm }] }, { useWasi: false, functions: host.functions() });
  const memory = (await plugin.getInstance()).exports.memory;
  host.memory = memory instanceof WebAssembly.Memory ? memory : null;
  const call = async (fn: string, input: string | Uint8Array | object = ''): Promise<string> => {
    const data = typeof input === 'string' || input instanceof Uint8Array ? input : JSON.stringify(input);
    host.input = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    try {
      const out = await plugin.call(fn, data);
      return out === null ? '' : out.text();
    } finally {
      await plugin.reset();
    }
  };
  return { plugin, host, call, json: async (fn, input) => JSON.parse(await call(fn, input)) as unknown };
}
