import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFixture, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let probe: TestPlugin;
beforeAll(async () => {
  probe = await load(await compileFixture('probe'));
}, 120_000);
afterAll(async () => {
  await probe?.plugin.close();
});

describe('JSON reader and tree', () => {
  it('round-trips nested documents with non-ASCII text, escapes and surrogate pairs', async () => {
    const doc = {
      plain: 'abc',
      accents: 'héllo wörld ñ',
      cjk: '中文テキスト',
      emoji: '😀 𝄞 👩‍👩‍👧',
      escapes: 'quote " backslash \\ slash / nl \n tab \t cr \r bs \b ff \f nul \u0000 us \u001f',
      nested: { list: [1, -2.5, 1e21, 0.1, true, false, null, [], {}, [[['deep']]]], empty: '' },
    };
    const out = await probe.call('json_roundtrip', JSON.stringify(doc));
    expect(JSON.parse(out)).toEqual(doc);
  });

  it('reads repeated and distinct short strings exactly, whatever the reader reuses between them', async () => {
    // Far more distinct short strings than the reader's table of recent ones, each repeated, around the length where
    // it stops keeping them (48 bytes), mixed with non-ASCII ones of the same lengths.
    const words: string[] = [];
    for (let i = 0; i < 3000; i++) words.push(`k${i.toString(36)}`.padEnd(i % 60, String.fromCharCode(97 + (i % 26))));
    const doc = {
      items: words.map((w, i) => ({ [w]: words[(i * 7) % words.length], again: w, wide: `${w}é`, empty: '' })),
    };
    const out = await probe.call('json_roundtrip', JSON.stringify(doc));
    expect(JSON.parse(out)).toEqual(doc);
  });

  it('parseFields keeps only the named top-level fields, skipping the others (escaped strings too) after checking them', async () => {
    const text = JSON.stringify({ a: 1, skip: ['x', 'y\n"z', { deep: [true, null, 2.5] }], b: { c: 'd' }, e: 'é' });
    expect(JSON.parse(await probe.call('json_fields_probe', { keys: ['a', 'b'], text }))).toEqual({
      a: 1,
      b: { c: 'd' },
    });
    expect(JSON.parse(await probe.call('json_fields_probe', { keys: [], text }))).toEqual({});
    expect(JSON.parse(await probe.call('json_fields_probe', { keys: ['a'], text: '[1,{"a":2}]' }))).toEqual([
      1,
      { a: 2 },
    ]);
    expect(JSON.parse(await probe.call('json_fields_probe', { keys: ['a'], text: '{"a":1,"z":"\\q"}' }))).toEqual({
      parseError: '$: invalid JSON at byte 12: expected a valid escape',
    });
    expect(JSON.parse(await probe.call('json_fields_probe', { keys: ['a'], text: '{"a":[1,}' }))).toEqual({
      parseError: '$.a[1]: invalid JSON at byte 8: expected a value',
    });
  });

  it('writes raw JSON bytes in place with rawBytes, separated like any value', async () => {
    expect(await probe.call('raw_bytes_probe', '{"k":["v"]}')).toBe('[1,{"k":["v"]},3]');
  });

  it('decodes \\u escapes, including surrogate pairs written as two escapes', async () => {
    const input = '{"a":"\\u00e9\\u4e2d\\ud83d\\ude00\\u0041","b":"\\"\\\\\\/\\b\\f\\n\\r\\t"}';
    expect(JSON.parse(await probe.call('json_roundtrip', input))).toEqual({ a: 'é中😀A', b: '"\\/\b\f\n\r\t' });
  });

  it('keeps a lone surrogate escape and writes it back escaped', async () => {
    expect(await probe.call('json_roundtrip', '["\\ud800x"]')).toBe('["\\ud800x"]');
  });

  it('replaces invalid UTF-8 with U+FFFD instead of failing', async () => {
    const bytes = new Uint8Array([0x5b, 0x22, 0x61, 0xff, 0x62, 0x5c, 0x6e, 0x22, 0x5d]); // ["a\xffb\n"]
    expect(JSON.parse(await probe.call('json_roundtrip', bytes))).toEqual(['a\ufffdb\n']);
  });

  it('replaces invalid UTF-8 in strings without escapes too (the fast path)', async () => {
    const bytes = new Uint8Array([0x5b, 0x22, 0xc3, 0xa9, 0xff, 0x62, 0xe2, 0x82, 0x22, 0x5d]); // ["é\xffb\xe2\x82"]
    expect(JSON.parse(await probe.call('json_roundtrip', bytes))).toEqual(['é\ufffdb\ufffd']);
  });

  it.each([
    ['a truncated 3-byte sequence', [0xe2, 0x82]],
    ['a truncated 4-byte sequence before ASCII', [0xf0, 0x9f, 0x98, 0x41]],
    ['an overlong form', [0xe0, 0x80, 0xaf]],
    ['a surrogate encoded in UTF-8', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['lead bytes that never start a sequence', [0xc0, 0xc1, 0xf5, 0xff, 0x80]],
    ['a valid start cut by another lead', [0xe2, 0x82, 0xe2, 0x82, 0xac]],
  ])('decodes invalid UTF-8 (%s) to the U+FFFDs TextDecoder gives, one per maximal subpart', async (_what, bad) => {
    // Both the fast path (no escape in the string) and the escape path (a \n after the bytes).
    for (const tail of [[], [0x5c, 0x6e]]) {
      const body = [...bad, ...tail];
      const bytes = new Uint8Array([0x5b, 0x22, ...body, 0x22, 0x5d]);
      const expected = JSON.parse(`["${new TextDecoder().decode(new Uint8Array(body))}"]`) as unknown;
      expect(JSON.parse(await probe.call('json_roundtrip', bytes))).toEqual(expected);
    }
  });

  it('reads numbers per the JSON grammar', async () => {
    const input = '[0,-1,12,-7,3.25,1e3,1E-2,-1.5e+2,123456789012345678,0.30000000000000004]';
    expect(JSON.parse(await probe.call('json_roundtrip', input))).toEqual(JSON.parse(input));
  });

  it.each([
    ['the largest subnormal, which rounds up to the smallest normal', '2.2250738585072011e-308'],
    ['a value the standard parseFloat is one ulp off', '5.079283847e45'],
    ['a 50-digit integer', '66676161452924962180237931063677666761614526529810'],
    ['a 50-digit mantissa with a fraction and an exponent', '871310215593155926.11383817123456789012345678901234e-12'],
    ['halfway between two doubles (ties to even)', '9007199254740993'],
    ['just above halfway, decided by the 800th digit', `9007199254740993${'0'.repeat(790)}1e-${790 + 1}`],
    ['the smallest subnormal', '5e-324'],
    ['under half the smallest subnormal', '2e-324'],
    ['the largest double', '1.7976931348623157e308'],
    ['just past the largest double (Infinity, written as null)', '1.7976931348623159e308'],
    ['an exponent past any i32', '1e99999999999'],
    ['a tiny value with a long exponent', '-1e-99999999999'],
    ['0.1 + 0.2 as JavaScript prints it', '0.30000000000000004'],
  ])('reads %s exactly as JSON.parse does', async (_what, text) => {
    const expected = JSON.parse(JSON.stringify([JSON.parse(text)])) as unknown;
    expect(JSON.parse(await probe.call('json_roundtrip', `[${text}]`))).toEqual(expected);
  });

  it('rounds like JSON.parse at and around the halfway points between random doubles', async () => {
    // Exact decimal halfway points (ties go to the even neighbour), points just above and below them, and the
    // shortest spellings JavaScript prints: where a parser that is not correctly rounded goes wrong.
    let seed = 0x5eed;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const texts: string[] = [];
    const bits = new BigUint64Array(1);
    const asDouble = new Float64Array(bits.buffer);
    while (texts.length < 3000) {
      bits[0] = (BigInt(Math.floor(random() * 2 ** 31)) << 32n) | BigInt(Math.floor(random() * 2 ** 32));
      const x = asDouble[0] as number;
      if (!Number.isFinite(x) || x === 0) continue;
      const half = halfwayAbove(bits[0] as bigint);
      texts.push(String(x), half, `${half}1`, below(half));
    }
    const input = `[${texts.join(',')}]`;
    const expected = JSON.parse(JSON.stringify(JSON.parse(input))) as number[];
    const got = JSON.parse(await probe.call('json_roundtrip', input)) as number[];
    const wrong = got.flatMap((v, i) => (v === expected[i] ? [] : [`${texts[i]}: ${v} instead of ${expected[i]}`]));
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it.each([
    ['{"a":1,}', '$: invalid JSON at byte 7: expected a key string'],
    ['[1,2', '$: invalid JSON: unexpected end, expected a value or ]'],
    ['{"a" 1}', '$: invalid JSON at byte 5: expected :'],
    ['[01]', '$: invalid JSON at byte 2: expected , or ]'],
    ['[1.]', '$[0]: invalid JSON at byte 3: expected a digit after the decimal point'],
    ['{"a":[true,nul]}', '$.a[1]: invalid JSON at byte 11: expected null'],
    ['"tab\there"', '$: invalid JSON at byte 4: expected no raw control characters in a string'],
    ['"\\x"', '$: invalid JSON at byte 1: expected a valid escape'],
    ['"\\u12G4"', '$: invalid JSON at byte 3: expected four hex digits after \\u'],
    ['{} x', '$: invalid JSON at byte 3: expected end of input'],
    ['', '$: invalid JSON: unexpected end, expected a value'],
  ])('reports %j with its path and offset', async (input, error) => {
    expect(await probe.json('json_roundtrip', input)).toEqual({ parseError: error });
  });

  it('refuses documents nested deeper than 256 levels instead of overflowing the stack', async () => {
    const deep = '['.repeat(300) + ']'.repeat(300);
    const out = (await probe.json('json_roundtrip', deep)) as { parseError: string };
    expect(out.parseError).toMatch(/JSON nested deeper than 256 levels$/);
  });
});

describe('JSON writer', () => {
  it('escapes strings exactly like JSON.stringify (control characters, quotes, lone surrogates)', async () => {
    const expected = [
      'plain',
      '\u0000\u0001\u001f\b\f\n\r\t',
      'quote " backslash \\ slash /',
      'é ü ß ĳ € 中文',
      '😀 𝄞',
      'lone \uD800 high, lone \uDC00 low, reversed \uDE00\uD83D',
      '',
    ];
    expect(await probe.call('write_strings')).toBe(JSON.stringify(expected));
  });

  it('writes numbers JSON can read back to the same values (-0 as 0 and NaN as null, like JSON.stringify)', async () => {
    const out = await probe.call('write_numbers');
    expect(JSON.parse(out)).toEqual([
      0,
      0,
      0.1,
      -2.5,
      1e21,
      1.5e-7,
      9007199254740992,
      123456789012,
      -2147483648,
      2147483647,
      -9007199254740991,
      null,
      true,
      null,
    ]);
    expect(out).toContain(',123456789012,'); // integral values without a trailing ".0"
  });
});

describe('generated ABI codecs', () => {
  const node = {
    name: 'node-ü',
    uid: '6d7f-1',
    providerID: 'test://i-1',
    labels: { 'topology.kubernetes.io/zone': 'z1', empty: '' },
    annotations: { note: 'line1\nline2 "quoted" 😀' },
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'node-ü' },
    ],
    systemUUID: '4C4C4544-0042-3510-8052-B4C04F4E4B31',
  };

  it('decode and encode a Node without loss, dropping unknown fields', async () => {
    const value = { ...node, future: { nested: [1, { x: null }] }, addresses: [{ ...node.addresses[0], extra: 1 }] };
    const out = await probe.json('abi_roundtrip', { type: 'Node', value });
    expect(out).toEqual({ ...node, addresses: [node.addresses[0]] });
  });

  it('read map fields when first used as they would be read at once: repeats, escapes, non-ASCII', async () => {
    // Map fields keep their JSON until read (JsonReader.readMapBytes): the last of repeated keys and of repeated
    // fields still wins, and escaped keys and values decode as readMap decodes them.
    const text =
      '{"type":"Node","value":{"name":"n","labels":{"gone":"1"},' +
      '"labels":{"a":"1","a":"2","b\\u0041":"\\u00e9\\n","c":"\\ud83d\\ude00 中"},"annotations":{}}}';
    const out = JSON.parse(await probe.call('abi_roundtrip', text)) as { labels: unknown; annotations: unknown };
    expect(out.labels).toEqual({ a: '2', bA: 'é\n', c: '😀 中' });
    expect(Object.keys(out.labels as object)).toEqual(['a', 'bA', 'c']);
    expect(out.annotations).toEqual({});
  });

  it('fill defaults for absent fields', async () => {
    expect(await probe.json('abi_roundtrip', { type: 'Node', value: { name: 'n' } })).toEqual({
      name: 'n',
      uid: '',
      providerID: '',
      labels: {},
      annotations: {},
      addresses: [],
      // ABI 1.4's optional field, at its default.
      systemUUID: '',
    });
  });

  it('round-trip a Service with ports (i32) and string lists', async () => {
    const svc = {
      name: 's',
      namespace: 'default',
      uid: 'u',
      labels: {},
      annotations: { 'lb/type': 'nlb' },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, nodePort: 30080, targetPort: '8080', appProtocol: '' },
        { name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053, targetPort: 'dns', appProtocol: 'dns' },
      ],
      loadBalancerIP: '',
      loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16'],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32000,
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'PreferDualStack',
      loadBalancerClass: '',
      sessionAffinity: 'None',
      externalIPs: [],
    };
    expect(await probe.json('abi_roundtrip', { type: 'Service', value: svc })).toEqual(svc);
  });

  it.each([
    [
      { type: 'Node', value: { ...node, addresses: [{}, { type: 5 }] } },
      '$.value.addresses[1].type: expected string, got number',
    ],
    [
      { type: 'Node', value: { ...node, labels: { a: 'b', c: ['x'] } } },
      '$.value.labels["c"]: expected string, got list',
    ],
    [{ type: 'Node', value: [] }, '$.value: expected object, got list'],
    [{ type: 'Service', value: { ports: [{ port: 80.5 }] } }, '$.value.ports[0].port: expected i32, got 80.5'],
    [
      { type: 'Service', value: { ports: [{ port: 2147483648 }] } },
      '$.value.ports[0].port: expected i32, got 2147483648.0',
    ],
    [{ type: 'Service', value: { ipFamilies: ['IPv4', null] } }, '$.value.ipFamilies[1]: expected string, got null'],
    [
      { type: 'InstanceMetadata', value: { additionalLabels: null } },
      '$.value.additionalLabels: expected object, got null',
    ],
  ])('name the path of a decoding problem (%#)', async (input, error) => {
    expect(await probe.json('abi_roundtrip', input)).toEqual({ decodeError: error });
  });
});

/** The exact decimal of the point halfway between the double with these bits and the next one up (positive only). */
function halfwayAbove(bits: bigint): string {
  const magnitude = bits & 0x7fffffffffffffffn;
  const biased = Number(magnitude >> 52n);
  const fraction = magnitude & 0xfffffffffffffn;
  const m = biased === 0 ? fraction : fraction | (1n << 52n);
  const k = biased === 0 ? -1074 : biased - 1075;
  // (2m + 1) * 2^(k - 1)
  const numerator = 2n * m + 1n;
  const e = k - 1;
  if (e >= 0) return `${(numerator << BigInt(e)).toString()}.0`;
  // numerator / 2^-e = numerator * 5^-e / 10^-e
  const digits = (numerator * 5n ** BigInt(-e)).toString().padStart(-e + 1, '0');
  return `${digits.slice(0, digits.length + e)}.${digits.slice(digits.length + e)}`;
}

/** A decimal a hair below `text` (a positive decimal with a fraction part): 10^-3 of its last place less. */
function below(text: string): string {
  const [whole = '', fraction = ''] = text.split('.');
  const places = fraction.length + 3;
  const scaled = (BigInt(`${whole}${fraction}000`) - 1n).toString().padStart(places + 1, '0');
  return `${scaled.slice(0, -places)}.${scaled.slice(-places)}`;
}
