// The provided-node-ip reading of upstream (k8s.io/utils ParseIPSloppy, component-helpers ParseNodeIPAnnotation),
// checked against Go's documented outcomes and, where the two agree by definition, differentially against
// Node's own net module.
import { BlockList, isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { preferProvidedNodeIPs } from '../../../../host/src/controllers/node/addresses.ts';
import {
  formatGoIP,
  isIPv6,
  parseIPSloppy,
  parseNodeIPAnnotation,
} from '../../../../host/src/controllers/node/node-ip.ts';

describe('parseIPSloppy (Go net.ParseIP as forked in k8s.io/utils)', () => {
  it.each<[string, string | undefined]>([
    ['10.0.0.5', '10.0.0.5'],
    ['010.000.000.005', '10.0.0.5'],
    ['0000000000001.2.3.4', '1.2.3.4'],
    ['255.255.255.255', '255.255.255.255'],
    ['256.0.0.1', undefined],
    ['1.2.3', undefined],
    ['1.2.3.4.5', undefined],
    ['1.2.3.', undefined],
    ['0x0a.0.0.1', undefined],
    [' 10.0.0.5', undefined],
    ['10.0.0.5 ', undefined],
    ['', undefined],
    ['::', '::'],
    ['::1', '::1'],
    ['fd00:0::5', 'fd00::5'],
    ['00001::', '1::'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['1:2:3:4:5:6:7:8::', undefined],
    ['1:2:3:4:5:6:7', undefined],
    ['1::2::3', undefined],
    [':::', undefined],
    ['1:', undefined],
    [':1::', undefined],
    ['10000::', undefined],
    ['fe80::1%eth0', undefined],
    ['::ffff:10.0.0.5', '10.0.0.5'],
    ['::ffff:010.0.0.5', '10.0.0.5'],
    ['::10.0.0.5', '::a00:5'],
    ['1:2:3:4:5:6:10.0.0.5', '1:2:3:4:5:6:a00:5'],
    ['1:2:3:4:5:10.0.0.5', undefined],
    ['1:2:3:4:5:6::10.0.0.5', undefined],
    ['10.0.0.5::', undefined],
    ['::ab.0.0.5', undefined],
  ])('%j -> %j', (text, want) => {
    const ip = parseIPSloppy(text);
    expect(ip === undefined ? undefined : formatGoIP(ip)).toBe(want);
  });

  it('treats an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(parseIPSloppy('::ffff:10.0.0.5')).toBe(parseIPSloppy('10.0.0.5'));
    expect(isIPv6(parseIPSloppy('::ffff:10.0.0.5')!)).toBe(false);
    expect(isIPv6(parseIPSloppy('::10.0.0.5')!)).toBe(true);
  });

  it('agrees with node:net on every address both can read (differential, 20,000 random inputs)', () => {
    let seed = 24;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = '0123456789abcdefABCDEF.:%x ';
    const v4 = () => Array.from({ length: 4 }, () => String(rand(300))).join('.');
    const v6 = () => {
      const groups = Array.from({ length: 8 }, () => rand(0x10000).toString(16));
      if (rand(2) === 0) return groups.join(':');
      const at = rand(8);
      const len = 1 + rand(8 - at);
      return `${groups.slice(0, at).join(':')}::${groups.slice(at + len).join(':')}`;
    };
    const noise = () => Array.from({ length: 1 + rand(20) }, () => alphabet[rand(alphabet.length)]).join('');
    let bothRead = 0;
    for (let i = 0; i < 20_000; i++) {
      const pick = rand(4);
      const text = pick === 0 ? v4() : pick === 1 ? v6() : pick === 2 ? `::ffff:${v4()}` : noise();
      const ours = parseIPSloppy(text);
      const family = isIP(text);
      // Node refuses what Go accepts only for leading zeros and groups of more than four digits; Go refuses
      // what Node accepts only for zones.
      const goOnly = /(^|[.:])0\d/.test(text) || /[0-9a-fA-F]{5}/.test(text);
      if (family === 0) {
        if (!goOnly) expect(ours, text).toBeUndefined();
        continue;
      }
      if (text.includes('%')) {
        expect(ours, text).toBeUndefined();
        continue;
      }
      expect(ours, text).toBeDefined();
      const list = new BlockList();
      list.addAddress(text, family === 4 ? 'ipv4' : 'ipv6');
      const ourText = formatGoIP(ours!);
      expect(list.check(ourText, isIPv6(ours!) ? 'ipv6' : 'ipv4'), `${text} -> ${ourText}`).toBe(true);
      bothRead++;
    }
    expect(bothRead).toBeGreaterThan(5_000);
  });
});

describe('parseNodeIPAnnotation (upstream ParseNodeIPAnnotation)', () => {
  it.each<[string, string[] | RegExp]>([
    ['10.0.0.5', ['10.0.0.5']],
    ['10.0.0.5,fd00::5', ['10.0.0.5', 'fd00::5']],
    ['fd00::5,10.0.0.5', ['fd00::5', '10.0.0.5']],
    ['010.000.000.005', ['10.0.0.5']],
    ['::ffff:10.0.0.5', ['10.0.0.5']],
    ['0.0.0.0', ['0.0.0.0']],
    [' 10.0.0.5', /could not parse " 10.0.0.5"/],
    ['10.0.0.5, fd00::5', /could not parse " fd00::5"/],
    ['', /could not parse ""/],
    ['10.0.0.5,', /could not parse ""/],
    ['10.0.0.5,10.0.0.6', /single IP or a dual-stack pair/],
    ['10.0.0.5,::ffff:10.0.0.6', /single IP or a dual-stack pair/],
    ['fd00::5,fd00::6', /single IP or a dual-stack pair/],
    ['10.0.0.5,fd00::5,10.0.0.6', /single IP or a dual-stack pair/],
    ['0.0.0.0,fd00::5', /cannot include '0.0.0.0' or '::'/],
    ['10.0.0.5,::', /cannot include '0.0.0.0' or '::'/],
  ])('%j', (text, want) => {
    if (want instanceof RegExp) {
      expect(() => parseNodeIPAnnotation(text)).toThrow(want);
    } else {
      expect(parseNodeIPAnnotation(text).map(formatGoIP)).toEqual(want);
    }
  });

  it('matches cloud addresses by value: leading zeros and mapped forms on either side', () => {
    const cloud = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
    ];
    expect(preferProvidedNodeIPs(parseNodeIPAnnotation('::ffff:10.0.0.6'), cloud)).toEqual([
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
    ]);
    expect(
      preferProvidedNodeIPs(parseNodeIPAnnotation('10.0.0.5'), [{ type: 'InternalIP', address: '010.0.0.5' }]),
    ).toEqual([{ type: 'InternalIP', address: '010.0.0.5' }]);
    expect(() => preferProvidedNodeIPs(parseNodeIPAnnotation('10.0.0.9'), cloud)).toThrow(
      'failed to get node address from cloud provider that matches ip: 10.0.0.9',
    );
    expect(() => preferProvidedNodeIPs(parseNodeIPAnnotation('10.0.0.9'), [])).toThrow('matches ip: 10.0.0.9');
  });
});
