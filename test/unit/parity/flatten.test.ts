// The parity harness's snapshots: arrays keyed by their elements, so a missing element is one named difference and
// a reorder is one `#order` difference, not a shift of every index after it.
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../support/parity/diff.ts';
import { flatten, identityOf, type Snapshot } from '../../support/parity/flatten.ts';
import { NameBook } from '../../support/parity/names.ts';

const snap = (value: unknown): Snapshot => {
  const out: Snapshot = new Map();
  flatten(out, 'node/a', value);
  return out;
};

const addresses = (...list: [string, string][]) => ({ addresses: list.map(([type, address]) => ({ type, address })) });

describe('parity snapshots', () => {
  it('names a missing array element instead of shifting the ones after it', () => {
    const upstream = snap(addresses(['InternalIP', '10.0.0.1'], ['InternalIP', '10.0.0.2'], ['Hostname', 'a']));
    const wasm = snap(addresses(['InternalIP', '10.0.0.2'], ['Hostname', 'a']));
    const { failing } = diffSnapshots(upstream, wasm, []);
    expect(failing).toEqual([
      'node/a/addresses/#order: upstream=["InternalIP 10.0.0.1","InternalIP 10.0.0.2","Hostname a"] wasm-ccm=["InternalIP 10.0.0.2","Hostname a"]',
      'node/a/addresses/[InternalIP 10.0.0.1]/address: upstream="10.0.0.1" wasm-ccm=(absent)',
      'node/a/addresses/[InternalIP 10.0.0.1]/type: upstream="InternalIP" wasm-ccm=(absent)',
    ]);
  });

  it('reports a reorder as the order alone', () => {
    const upstream = snap({ sourceRanges: ['10.2.0.0/16', '10.1.0.0/16'] });
    const wasm = snap({ sourceRanges: ['10.1.0.0/16', '10.2.0.0/16'] });
    expect(diffSnapshots(upstream, wasm, []).failing).toEqual([
      'node/a/sourceRanges/#order: upstream=["10.2.0.0/16","10.1.0.0/16"] wasm-ccm=["10.1.0.0/16","10.2.0.0/16"]',
    ]);
  });

  it('keys elements by their identity fields, escapes "/" and numbers repeated identities', () => {
    expect(identityOf({ protocol: 'UDP', port: 53, nodePort: 30053 })).toBe('UDP 53');
    expect(identityOf({ key: 'a/b', effect: 'NoSchedule', value: '' })).toBe('a/b NoSchedule');
    const out = snap({ taints: [{ key: 'a/b', effect: 'NoSchedule' }], list: ['x', 'x'], empty: [], none: {} });
    expect(out.get('node/a/taints/[a~1b NoSchedule]/key')).toBe('"a/b"');
    expect(out.get('node/a/list/#order')).toBe('["x","x#2"]');
    expect(out.get('node/a/empty')).toBe('[]');
    expect(out.get('node/a/none')).toBe('{}');
  });

  it('sorts an allowed difference apart from the failing ones', () => {
    const allow = [{ path: /\/sourceRanges\//, reason: 'documented' }];
    const { failing, allowed } = diffSnapshots(
      snap({ sourceRanges: ['x', 'y'] }),
      snap({ sourceRanges: ['y', 'x'] }),
      allow,
    );
    expect(failing).toEqual([]);
    expect(allowed).toHaveLength(1);
    expect(allowed[0]).toMatch(/\[allowed: documented\]$/);
  });

  it('allows a difference by value only where the entry accepts the pair', () => {
    const allow = [
      { path: /\/messages$/, values: (u?: string, w?: string) => w === u?.replace('x', 'y'), reason: 'known' },
    ];
    const one = (v: string): Snapshot => new Map([['event/messages', v]]);
    expect(diffSnapshots(one('ax'), one('ay'), allow)).toMatchObject({ failing: [], allowed: [expect.any(String)] });
    expect(diffSnapshots(one('ax'), one('az'), allow).failing).toHaveLength(1);
  });

  it('maps a recorded UID back to its object, in any text', () => {
    const names = new NameBook();
    names.remember('Node', 'node-a', '6d1c1f1e-2b3c-4d5e-6f7a-8b9c0d1e2f30');
    expect(names.humanize('kubernetes-6d1c1f1e-2b3c-4d5e-6f7a-8b9c0d1e2f30-4837bd87')).toBe(
      'kubernetes-<uid of Node/node-a>-4837bd87',
    );
    expect(names.owner('unknown')).toBeUndefined();
  });
});
