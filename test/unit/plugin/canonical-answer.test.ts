// The worker's reading of an answer (sandbox/canonical-answer.ts): what the main thread gets is the canonical form
// of a valid answer, or an Internal error envelope in the words decodeAnswer would have used for the plugin's bytes.
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_MAP_ENTRIES } from '../../../host/src/abi/index.ts';
import { InternalError } from '../../../host/src/cloudprovider/index.ts';
import { canonicalAnswer } from '../../../host/src/plugin/sandbox/canonical-answer.ts';
import { decodeAnswer } from '../../../host/src/plugin/sandbox/decode-answer.ts';
import { failure } from './support/failure.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const canonical = (exportName: string, text: string): string =>
  decoder.decode(canonicalAnswer(exportName, encoder.encode(text)));
const context = { provider: 'acme', method: 'getZone' };

describe('the canonical form of an answer', () => {
  it('keeps the ABI fields only, in the definition order', () => {
    expect(
      canonical('ccm_get_zone', '{"x":[[{"k":1}]],"ok":{"region":"r","extra":true,"failureDomain":"z"},"y":1}'),
    ).toBe('{"ok":{"failureDomain":"z","region":"r"}}');
    const metadata = {
      ok: {
        additionalLabels: { b: '2', __proto__: 'kept', a: '1' },
        region: 'r',
        zone: 'z',
        nodeAddresses: [{ address: '10.0.0.1', type: 'InternalIP', note: 'dropped' }],
        instanceType: 't',
        providerID: 'p',
      },
    };
    const text = JSON.stringify(metadata).replace('"b":"2",', '"b":"2","__proto__":"kept",');
    expect(canonical('ccm_instance_metadata', text)).toBe(
      '{"ok":{"providerID":"p","instanceType":"t","nodeAddresses":[{"type":"InternalIP","address":"10.0.0.1"}],' +
        '"zone":"z","region":"r","additionalLabels":{"b":"2","__proto__":"kept","a":"1"}}}',
    );
  });

  it('keeps an error envelope as code, message and delay', () => {
    expect(
      canonical('ccm_get_zone', '{"error":{"retryAfterSeconds":3,"why":"x","message":"busy","code":"Retry"}}'),
    ).toBe('{"error":{"code":"Retry","message":"busy","retryAfterSeconds":3}}');
  });

  it('hands the output of an export the ABI does not name on as it is', () => {
    const output = encoder.encode('not even JSON');
    expect(canonicalAnswer('probe', output)).toBe(output);
  });

  // Up to 64 KiB a refused answer goes on as it is (the conformance kit reads it); past that, as the Internal error.
  const padded = (text: string): Uint8Array => encoder.encode(text.replace('{', `{"pad":"${' '.repeat(64 * 1024)}",`));
  it.each([
    ['not UTF-8', Uint8Array.of(0x7b, 0xc3, 0x28, 0x7d, ...encoder.encode(' '.repeat(64 * 1024)))],
    ['not JSON', encoder.encode(`{"ok": ${' '.repeat(64 * 1024)}`)],
    ['not the ABI', padded('{"ok":{"failureDomain":7,"region":"r"}}')],
    ['nested too deep', padded(`{"ok":${'['.repeat(200)}${']'.repeat(200)}}`)],
  ])('turns a large answer %s into the Internal error decodeAnswer makes of it', (_what, output) => {
    const relayedBytes = canonicalAnswer('ccm_get_zone', output);
    expect(relayedBytes.byteLength).toBeLessThan(1024);
    const direct = failure(() => decodeAnswer('getZone', output, context));
    const relayed = failure(() => decodeAnswer('getZone', relayedBytes, context));
    expect(relayed).toBeInstanceOf(InternalError);
    expect(relayed.message).toBe(direct.message);
  });

  it('hands a small refused answer on as it is', () => {
    const output = encoder.encode('{"error":{"code":"ImplementedElsewhere","message":"not here"}}');
    expect(canonicalAnswer('ccm_ensure_load_balancer_deleted', output)).toBe(output);
  });

  it(`refuses maps of more than ${MAX_ANSWER_MAP_ENTRIES} entries in all, the only keys a plugin chooses`, () => {
    const labels = (n: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`label-${i}`, 'v']));
    const answer = (n: number): string =>
      JSON.stringify({
        ok: {
          providerID: 'p',
          instanceType: 't',
          nodeAddresses: [],
          zone: '',
          region: '',
          additionalLabels: labels(n),
        },
      });
    expect(canonical('ccm_instance_metadata', answer(MAX_ANSWER_MAP_ENTRIES))).toContain('"label-999":"v"');
    expect(JSON.parse(canonical('ccm_instance_metadata', answer(MAX_ANSWER_MAP_ENTRIES + 1)))).toEqual({
      error: {
        code: 'Internal',
        message: "the plugin's answer does not match the ABI: the answer's maps hold more than 1000 entries",
      },
    });
  });
});
