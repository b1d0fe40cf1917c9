import { describe, expect, it } from 'vitest';
import { hasCachedJSON, jsonPayload, withCachedJSON } from '../../../host/src/abi/index.ts';

const text = (payload: string | Uint8Array): string =>
  typeof payload === 'string' ? payload : new TextDecoder().decode(payload);

function nodeList(): readonly { name: string; labels: Record<string, string> }[] {
  const nodes: { name: string; labels: Record<string, string> }[] = [
    { name: 'a', labels: { zone: 'é-1', quote: '"\\' } },
    { name: 'b', labels: { emoji: '\u{1F680}', ctl: '\u0000\n' } },
  ];
  for (const n of nodes) {
    Object.freeze(n.labels);
    Object.freeze(n);
  }
  return Object.freeze(nodes);
}

describe('jsonPayload', () => {
  it('is JSON.stringify itself (a string) when nothing is registered', () => {
    const request = { clusterName: 'k', service: { name: 's', ports: [1, 2] }, n: 1 };
    expect(jsonPayload(request)).toBe(JSON.stringify(request));
    expect(jsonPayload([1, 'x'])).toBe('[1,"x"]');
    expect(jsonPayload('plain')).toBe('"plain"');
  });

  it('splices a registered field and gives the same bytes as JSON.stringify', () => {
    const nodes = withCachedJSON(nodeList(), JSON.stringify(nodeList()));
    for (const request of [
      { clusterName: 'kubernetes', service: { name: 's', labels: { a: 'ü' } }, nodes },
      { nodes, clusterName: 'k' },
      { clusterName: 'k', nodes, skipped: undefined, fn: () => 1, after: [null, true] },
      { nodes },
    ]) {
      const payload = jsonPayload(request);
      expect(payload).toBeInstanceOf(Uint8Array);
      expect(text(payload)).toBe(JSON.stringify(request));
      expect(new Uint8Array(payload as Uint8Array)).toEqual(new TextEncoder().encode(JSON.stringify(request)));
    }
  });

  it('splices the registered value itself, handing out a copy', () => {
    const nodes = withCachedJSON(nodeList(), JSON.stringify(nodeList()));
    const first = jsonPayload(nodes) as Uint8Array;
    first.fill(0);
    expect(text(jsonPayload(nodes))).toBe(JSON.stringify(nodes));
  });

  it('uses the registered text, so a request carries what was registered', () => {
    // Registration trusts its caller: this is how the test sees that the cached text is what goes out.
    const value = withCachedJSON(Object.freeze([1]), '[2]');
    expect(text(jsonPayload({ value }))).toBe('{"value":[2]}');
    expect(JSON.stringify({ value })).toBe('{"value":[1]}');
  });

  it('makes a text registered as a function once, when a request first carries the value', () => {
    let made = 0;
    const value = withCachedJSON(Object.freeze([1]), () => {
      made++;
      return '[3]';
    });
    expect(hasCachedJSON(value)).toBe(true);
    expect(made).toBe(0);
    expect(text(jsonPayload({ value }))).toBe('{"value":[3]}');
    expect(text(jsonPayload({ a: 1, value }))).toBe('{"a":1,"value":[3]}');
    expect(made).toBe(1);
  });

  it('refuses a value that could change after registration, and leaves the value a normal array', () => {
    expect(() => withCachedJSON([1], '[1]')).toThrow(TypeError);
    const nodes = withCachedJSON(nodeList(), JSON.stringify(nodeList()));
    expect(hasCachedJSON(nodes)).toBe(true);
    expect(hasCachedJSON(nodeList())).toBe(false);
    expect(Array.isArray(nodes)).toBe(true);
    expect(Object.keys(nodes)).toEqual(['0', '1']);
    expect(nodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(() => (nodes as unknown[]).push(1)).toThrow(TypeError);
  });

  it('follows JSON.stringify for a request object with its own toJSON', () => {
    const nodes = withCachedJSON(nodeList(), JSON.stringify(nodeList()));
    const request = { nodes, toJSON: () => ({ replaced: true }) };
    expect(jsonPayload(request)).toBe('{"replaced":true}');
  });
});
