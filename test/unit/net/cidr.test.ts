import { describe, expect, it } from 'vitest';
import { cidrContains, formatIP, parseCIDR, parseClusterCIDRs, parseIP } from '../../../host/src/net/cidr.ts';

describe('CIDR', () => {
  it('canonicalises networks (host bits cleared)', () => {
    expect(parseCIDR('10.244.1.7/16').text).toBe('10.244.0.0/16');
    expect(parseCIDR('fd00:0:0:1::5/48').text).toBe('fd00::/48');
    expect(parseCIDR('0.0.0.0/0').text).toBe('0.0.0.0/0');
  });
  it('parses and formats IPv6 incl. embedded IPv4', () => {
    expect(formatIP('IPv6', parseIP('2001:db8::1').value)).toBe('2001:db8::1');
    expect(formatIP('IPv6', parseIP('::ffff:10.0.0.1').value)).toBe('::ffff:a00:1');
    expect(formatIP('IPv6', parseIP('1:0:0:2:0:0:0:3').value)).toBe('1:0:0:2::3');
  });
  it('tests containment per family', () => {
    const cluster = parseCIDR('10.244.0.0/16');
    expect(cidrContains(cluster, parseCIDR('10.244.3.0/24'))).toBe(true);
    expect(cidrContains(cluster, parseCIDR('10.245.0.0/24'))).toBe(false);
    expect(cidrContains(cluster, parseCIDR('10.0.0.0/8'))).toBe(false);
    expect(cidrContains(cluster, parseCIDR('fd00::/64'))).toBe(false);
    expect(cidrContains(parseCIDR('fd00::/48'), parseCIDR('fd00:0:0:7::/64'))).toBe(true);
  });
  it.each([
    ['10.0.0.0', /expected address\/prefix/],
    ['10.0.0.0/33', /prefix length must be 0..32/],
    ['10.0.0.256/8', /is not an IP address/],
    ['fd00::/129', /prefix length must be 0..128/],
    ['10.0.0.0/a', /prefix length/],
  ])('refuses %s', (text, message) => {
    expect(() => parseCIDR(text)).toThrow(message);
  });
  it('accepts one CIDR or a dual-stack pair for --cluster-cidr', () => {
    expect(parseClusterCIDRs('')).toEqual([]);
    expect(parseClusterCIDRs('10.244.0.0/16').map((c) => c.text)).toEqual(['10.244.0.0/16']);
    expect(parseClusterCIDRs('10.244.0.0/16, fd00::/48').map((c) => c.family)).toEqual(['IPv4', 'IPv6']);
    expect(() => parseClusterCIDRs('10.0.0.0/8,10.1.0.0/16')).toThrow(/dual-stack/);
    expect(() => parseClusterCIDRs('10.0.0.0/8,fd00::/8,10.1.0.0/16')).toThrow(/at most two/);
  });
});
