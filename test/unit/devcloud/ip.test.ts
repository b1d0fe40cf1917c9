import { describe, expect, it } from 'vitest';
import { canonicalCidr, hasHostBits, parseCidr, parseIp } from '../../../devcloud/src/net/ip.ts';

describe('devcloud CIDR parsing', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.1/32', '192.168.1.1/32'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001/128', '2001:db8::1/128'],
    ['fd00:0:0:1:0:0:0:0/64', 'fd00:0:0:1::/64'],
    ['::ffff:10.0.0.1/128', '::ffff:a00:1/128'],
    ['::/0', '::/0'],
  ])('parses %s as network %s', (text, canonical) => {
    const c = parseCidr(text);
    expect(c).not.toBeNull();
    expect(canonicalCidr(c!)).toBe(canonical);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '10.0.0.256/8', '2001:db8::/129', 'x/8', '10.0.0.0/-1', '10.0.0.0/8/8', ''])(
    'rejects %j',
    (text) => expect(parseCidr(text)).toBeNull(),
  );

  it('tells whether host bits are set', () => {
    expect(hasHostBits(parseCidr('10.0.0.1/24')!)).toBe(true);
    expect(hasHostBits(parseCidr('10.0.0.0/24')!)).toBe(false);
    expect(hasHostBits(parseCidr('2001:db8::1/64')!)).toBe(true);
  });

  it('parses addresses of both families', () => {
    expect(parseIp('10.0.0.1')).toEqual({ family: 4, value: 0x0a000001n });
    expect(parseIp('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIp('example.com')).toBeNull();
  });
});
