// The SDK's URL and annotation helpers (plugin-sdk/assembly/url.ts, annotations.ts), run in a compiled module.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFixture, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let helpers: TestPlugin;
beforeAll(async () => {
  helpers = await load(await compileFixture('helpers'));
}, 120_000);
afterAll(async () => {
  await helpers?.plugin.close();
});

interface AnnotationAnswer {
  value: string | number;
  present: boolean;
  error: string;
}

const annotation = async (input: object): Promise<AnnotationAnswer> =>
  (await helpers.json('annotation_probe', input)) as AnnotationAnswer;

describe('URL helpers', () => {
  it('encode every byte but the unreserved ones, as encodeURIComponent does, and slashes too', async () => {
    const values = ['node-1.a_b~c', 'a/b', 'x y+z', 'cluster=é', "!*'()", '50%', '中文😀', '?#&[]@'];
    const out = (await helpers.json('encode_probe', { values })) as Record<string, unknown>;
    // encodeURIComponent leaves !*'() alone; RFC 3986 reserves them, so the SDK encodes them.
    const rfc3986 = (v: string): string =>
      encodeURIComponent(v).replace(/[!*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    expect(out.components).toEqual(values.map(rfc3986));
    expect(out.path).toBe(values.map((v) => `/${rfc3986(v)}`).join(''));
    expect(out.query).toBe(`?${values.map((v) => `v=${rfc3986(v)}`).join('&')}`);
    expect(new URL(`http://h${out.path as string}`).pathname.split('/').length).toBe(values.length + 1);
  });

  it('write no query string for no pairs', async () => {
    expect(await helpers.json('encode_probe', { values: [] })).toEqual({ components: [], path: '', query: '' });
  });
});

describe('annotation helpers', () => {
  const name = 'service.beta.kubernetes.io/mycloud-idle-timeout';

  it('read integers strictly, the fallback when absent', async () => {
    expect(await annotation({ annotations: {}, name, kind: 'int' })).toEqual({
      value: '-1',
      present: false,
      error: '',
    });
    for (const [text, value] of [
      ['42', '42'],
      ['-7', '-7'],
      ['+3', '3'],
      ['007', '7'],
      ['9223372036854775807', '9223372036854775807'],
    ]) {
      expect(await annotation({ annotations: { [name]: text }, name, kind: 'int' })).toEqual({
        value,
        present: true,
        error: '',
      });
    }
  });

  it('refuse anything but a plain integer, naming the annotation and the value', async () => {
    for (const text of ['', ' 42', '42 ', '4_2', '0x10', '1e3', '3.0', '-', '12a', '9223372036854775808']) {
      const out = await annotation({ annotations: { [name]: text }, name, kind: 'int' });
      expect(out.present).toBe(true);
      expect(out.value).toBe('-1');
      expect(out.error).toMatch(new RegExp(`^Invalid: annotation ${name}: "${text.replace(/[+.]/g, '\\$&')}" is `));
    }
  });

  it('check the range of integers', async () => {
    const out = await annotation({ annotations: { [name]: '4001' }, name, kind: 'int', min: 1, max: 4000 });
    expect(out.error).toBe(`Invalid: annotation ${name}: "4001" is out of range [1, 4000]`);
    const ok = await annotation({ annotations: { [name]: '4000' }, name, kind: 'int', min: 1, max: 4000 });
    expect(ok).toEqual({ value: '4000', present: true, error: '' });
  });

  it('read decimal numbers strictly and refuse the rest', async () => {
    for (const [text, value] of [
      ['0.5', 0.5],
      ['-2.25e2', -225],
      ['10', 10],
      ['1E-3', 0.001],
    ] as const) {
      const out = await annotation({ annotations: { [name]: text }, name, kind: 'float' });
      expect(out).toEqual({ value, present: true, error: '' });
    }
    for (const text of ['', '.5', '5.', '1e', 'NaN', 'Infinity', ' 1', '1,5', '0x1p3', '1e400']) {
      const out = await annotation({ annotations: { [name]: text }, name, kind: 'float' });
      expect(out.error).toContain(`annotation ${name}: "${text}" is `);
      expect(out.value).toBe(-1);
    }
    const range = await annotation({ annotations: { [name]: '1.5' }, name, kind: 'float', min: 0, max: 1 });
    expect(range.error).toBe(`Invalid: annotation ${name}: "1.5" is out of range [0.0, 1.0]`);
  });
});
