import { describe, expect, it } from 'vitest';
import { AllowListError, HostAllowList, parseEntry } from '../../../host/src/plugin/broker/allow-list.ts';

describe('host allow-list', () => {
  const list = new HostAllowList([
    'api.example.com',
    'Metadata.Internal:8080',
    '10.0.0.1:443',
    '[::1]:9000',
    'plain.example:80',
  ]);

  it.each([
    ['https://api.example.com/v1/instances', true],
    ['https://api.example.com:443/v1', true],
    ['http://api.example.com/', true], // no port in the entry: the scheme's default port
    ['https://api.example.com:8443/', false],
    ['https://API.EXAMPLE.COM/', true],
    ['https://evil.api.example.com/', false],
    ['https://api.example.com.evil.net/', false],
    ['http://metadata.internal:8080/latest', true],
    ['http://metadata.internal/latest', false],
    ['https://10.0.0.1/', true],
    ['http://10.0.0.1/', false],
    ['http://[::1]:9000/', true],
    ['http://plain.example/', true],
    ['https://plain.example/', false], // entry says port 80, https defaults to 443
    ['file:///etc/passwd', false],
    ['ftp://api.example.com/', false],
  ])('%s -> %s', (url, allowed) => {
    expect(list.allows(new URL(url))).toBe(allowed);
  });

  it('parses entries', () => {
    expect(parseEntry('Example.COM')).toEqual({ hostname: 'example.com', port: undefined });
    expect(parseEntry('example.com:80')).toEqual({ hostname: 'example.com', port: 80 });
    expect(parseEntry('[::1]:8443')).toEqual({ hostname: '[::1]', port: 8443 });
  });

  it.each([
    '',
    '*.example.com',
    'https://example.com',
    'example.com/path',
    'user@example.com',
    'example.com:0',
    'exa mple.com',
  ])('refuses %j', (entry) => {
    expect(() => parseEntry(entry)).toThrow(AllowListError);
  });

  it('describes itself for error messages', () => {
    expect(String(new HostAllowList(['a.example', 'b.example:8443']))).toBe('a.example, b.example:8443');
    expect(String(new HostAllowList([]))).toBe('(empty)');
  });
});
