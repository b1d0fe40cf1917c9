import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { errorMessage } from '../../../host/src/util/error-message.ts';

describe('errorMessage', () => {
  it('gives an Error its message, whatever its class', () => {
    expect(errorMessage(new Error('disk full'))).toBe('disk full');
    expect(errorMessage(new TypeError('not a function'))).toBe('not a function');
    expect(errorMessage(new DOMException('aborted', 'AbortError'))).toBe('aborted');
  });

  it('names an Error whose message is empty', () => {
    expect(errorMessage(new RangeError())).toBe('RangeError');
  });

  it('reads an error of another realm by its message', () => {
    const foreign: unknown = runInNewContext('new Error("from a vm context")');
    expect(foreign instanceof Error).toBe(false);
    expect(errorMessage(foreign)).toBe('from a vm context');
  });

  it.each([
    ['a string', 'quota exceeded', 'quota exceeded'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a symbol', Symbol('boom'), 'Symbol(boom)'],
    ['a plain object', { code: 'Throttled', retry: 3 }, '{"code":"Throttled","retry":3}'],
    ['an object with no prototype', Object.assign(Object.create(null) as object, { a: 1 }), '{"a":1}'],
    ['an array', ['a', 1], '["a",1]'],
    ['a bigint inside an object', { n: 10n }, '{"n":"10"}'],
  ])('turns %s into readable text', (_what, thrown, text) => {
    expect(errorMessage(thrown)).toBe(text);
  });

  it('falls back to String() for an object JSON cannot write', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(errorMessage(cyclic)).toBe('[object Object]');
    expect(errorMessage(new Map([[1, 2]]))).toBe('[object Map]');
  });

  it('survives an object whose toString throws', () => {
    const hostile = {
      toString(): string {
        throw new Error('no');
      },
    };
    Object.setPrototypeOf(hostile, Object.create(Object.prototype) as object);
    expect(errorMessage(hostile)).toBe('[object Object]');
  });
});
