import { describe, expect, it } from 'vitest';
import {
  ImplementedElsewhereError,
  InstanceNotFoundError,
  InternalError,
  InvalidError,
  isImplementedElsewhere,
  isInstanceNotFound,
  isNotImplemented,
  isProviderError,
  isRetry,
  NotImplementedError,
  RetryError,
} from '../../../host/src/cloudprovider/index.ts';
import { decodeAnswer } from '../../../host/src/plugin/sandbox/decode-answer.ts';
import { cutPluginMessageBytes } from '../../../host/src/plugin/sandbox/plugin-message.ts';
import { failure } from './support/failure.ts';

const context = { provider: 'acme', method: 'getLoadBalancerName' };
const bytes = (value: unknown): Uint8Array =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const decode = (method: 'getLoadBalancerName' | 'ensureLoadBalancer' | 'ensureLoadBalancerDeleted', value: unknown) =>
  decodeAnswer(method, bytes(value), { ...context, method });

describe('decoding answers', () => {
  it('returns the response of an ok envelope', () => {
    expect(decode('getLoadBalancerName', { ok: { name: 'a1234' } })).toEqual({ name: 'a1234' });
  });

  it.each([
    ['InstanceNotFound', InstanceNotFoundError],
    ['NotImplemented', NotImplementedError],
    ['Invalid', InvalidError],
    ['Internal', InternalError],
  ] as const)('maps %s to its named error, message prefixed with provider and method', (code, type) => {
    const err = failure(() => decode('getLoadBalancerName', { error: { code, message: 'it said so' } }));
    expect(err).toBeInstanceOf(type);
    expect(err.message).toBe('acme.getLoadBalancerName: it said so');
    expect(isProviderError(err)).toBe(true);
  });

  it('carries the Retry delay', () => {
    const err = failure(() =>
      decode('getLoadBalancerName', { error: { code: 'Retry', message: 'busy', retryAfterSeconds: 12 } }),
    );
    expect(isRetry(err) && err.retryAfterSeconds).toBe(12);
    expect(err).toBeInstanceOf(RetryError);
  });

  it.each([
    [1e-9, 1],
    [0.25, 1],
    [2_147_484, 3600],
    [1e308, 3600],
  ])('holds a Retry delay of %s s within 1 s .. 1 hour (%s)', (asked, held) => {
    const err = failure(() =>
      decode('getLoadBalancerName', { error: { code: 'Retry', message: 'busy', retryAfterSeconds: asked } }),
    );
    expect(isRetry(err) && err.retryAfterSeconds).toBe(held);
  });

  it("cuts a plugin's message to 4 KiB of UTF-8, whole characters, the cut marked", () => {
    const huge = failure(() =>
      decode('getLoadBalancerName', { error: { code: 'Internal', message: 'x'.repeat(16 * 1024 * 1024) } }),
    );
    expect(huge).toBeInstanceOf(InternalError);
    expect(huge.message).toBe(
      `acme.getLoadBalancerName: ${'x'.repeat(4096)}… [cut: the plugin's message has 16777216 bytes, at most 4096 are kept]`,
    );
    // 'é' is 2 bytes and '😀' 4: the cut never splits one, and a message that fits is kept as it is.
    const wide = failure(() =>
      decode('getLoadBalancerName', {
        error: { code: 'Retry', message: `a${'😀'.repeat(2000)}`, retryAfterSeconds: 2 },
      }),
    );
    expect(wide.message).toMatch(/^acme\.getLoadBalancerName: a(😀){1023}… \[cut: the plugin's message has 8001 bytes/);
    const fits = `${'é'.repeat(2048)}`;
    expect(failure(() => decode('getLoadBalancerName', { error: { code: 'Invalid', message: fits } })).message).toBe(
      `acme.getLoadBalancerName: ${fits}`,
    );
  });

  it("cuts the per-node messages of a batch, each part's of a combined one too", () => {
    const long = (code: string) => ({ code, message: 'y'.repeat(10_000), retryAfterSeconds: code === 'Retry' ? 5 : 0 });
    const none = { code: '', message: '', retryAfterSeconds: 0 };
    const status = decodeAnswer(
      'instanceStatusBatch',
      bytes({
        ok: {
          results: [
            {
              exists: { ok: { exists: false }, error: long('Internal') },
              shutdown: { ok: { shutdown: false }, error: none },
            },
            {
              exists: { ok: { exists: true }, error: none },
              shutdown: { ok: { shutdown: false }, error: long('Retry') },
            },
          ],
        },
      }),
      { ...context, method: 'instanceStatusBatch' },
    );
    const messages = status.results.flatMap((r) => [r.exists.error.message, r.shutdown.error.message]);
    expect(messages.map((m) => m.length)).toEqual([messages[0]!.length, 0, 0, messages[0]!.length]);
    expect(messages[0]).toMatch(/^y{4096}… \[cut: the plugin's message has 10000 bytes, at most 4096 are kept\]$/);
    const exists = decodeAnswer(
      'instanceExistsBatch',
      bytes({ ok: { results: [{ ok: { exists: false }, error: long('Internal') }] } }),
      { ...context, method: 'instanceExistsBatch' },
    );
    expect(exists.results[0]!.error.message).toBe(messages[0]);
  });

  it('cuts an Extism error (bytes) before a character that would not fit whole', () => {
    const text = `ab${'€'.repeat(2000)}`; // '€' is 3 bytes: byte 4096 falls inside one
    const cut = new TextDecoder('utf-8', { fatal: true }).decode(cutPluginMessageBytes(new TextEncoder().encode(text)));
    expect(cut).toBe(`ab${'€'.repeat(1364)}… [cut: the plugin's message has 6002 bytes, at most 4096 are kept]`);
    const small = new TextEncoder().encode('fine');
    expect(cutPluginMessageBytes(small)).toBe(small);
  });

  it('parses an answer nested 128 levels deep, and refuses one of 129 before parsing it', () => {
    const nested = (levels: number): string =>
      `{"ok":{"name":"a"},"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect(decode('getLoadBalancerName', nested(128))).toEqual({ name: 'a' });
    const err = failure(() => decode('getLoadBalancerName', nested(129)));
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).toBe("acme.getLoadBalancerName: the plugin's answer is nested deeper than 128 levels");
  });

  it('counts neither brackets nor commas inside strings, escaped quotes and backslashes included', () => {
    // In the JSON text: [{,\\\"[{,[{,...\\\\" : an escaped backslash, an escaped quote, ..., two escaped backslashes.
    const name = `[{,\\"${'[{,'.repeat(200_000)}\\\\`;
    expect(decode('getLoadBalancerName', `{"ok":{"name":${JSON.stringify(name)}}}`)).toEqual({ name });
  });

  it('refuses an answer of more than 131072 values (each {, [ and ,) before parsing it', () => {
    const values = (n: number): string => `{"ok":{"name":"a"},"x":[${'0,'.repeat(n - 4)}0]}`;
    expect(decode('getLoadBalancerName', values(131_072))).toEqual({ name: 'a' });
    expect(failure(() => decode('getLoadBalancerName', values(131_073))).message).toBe(
      "acme.getLoadBalancerName: the plugin's answer holds more than 131072 values",
    );
  });

  it('accepts ImplementedElsewhere only where the ABI allows it', () => {
    const ensure = failure(() =>
      decode('ensureLoadBalancer', { error: { code: 'ImplementedElsewhere', message: 'not us' } }),
    );
    expect(isImplementedElsewhere(ensure)).toBe(true);
    expect(ensure).toBeInstanceOf(ImplementedElsewhereError);
    const deleted = failure(() =>
      decode('ensureLoadBalancerDeleted', { error: { code: 'ImplementedElsewhere', message: 'not us' } }),
    );
    expect(deleted).toBeInstanceOf(InternalError);
    expect(deleted.message).toContain('ImplementedElsewhere is not an answer ensureLoadBalancerDeleted may give');
  });

  it.each([
    ['not UTF-8', Uint8Array.of(0x7b, 0xc3, 0x28, 0x7d), /not UTF-8/],
    ['not JSON', bytes('{"ok": '), /not JSON/],
    ['wrong shape', bytes({ ok: { name: 7 } }), /does not match the ABI: ok\.name: expected string, got 7/],
    ['neither ok nor error', bytes({ result: 1 }), /expected key ok or error/],
    ['Retry without delay', bytes({ error: { code: 'Retry', message: 'x' } }), /retryAfterSeconds/],
    ['unknown code', bytes({ error: { code: 'Oops', message: 'x' } }), /error\.code/],
  ])('turns %s into an Internal error', (_what, output, message) => {
    const err = failure(() => decodeAnswer('getLoadBalancerName', output, context));
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).toMatch(message);
    expect(err.message.startsWith('acme.getLoadBalancerName: ')).toBe(true);
  });

  it('keeps the helpers exact', () => {
    const notFound = new InstanceNotFoundError('gone');
    expect(isInstanceNotFound(notFound)).toBe(true);
    expect(isNotImplemented(notFound)).toBe(false);
    expect(isInstanceNotFound(new Error('gone'))).toBe(false);
    expect(notFound.code).toBe('InstanceNotFound');
  });
});
