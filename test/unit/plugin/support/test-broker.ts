// The broker the HTTP tests use: the given hosts allowed, these credentials, small limits unless overridden.
import type { CredentialStore } from '../../../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker, type HttpBrokerOptions } from '../../../../host/src/plugin/broker/http-broker.ts';

export function testBroker(
  hosts: string[],
  credentials: CredentialStore,
  overrides: Partial<HttpBrokerOptions> = {},
): HttpBroker {
  return new HttpBroker({
    allowList: new HostAllowList(hosts),
    credentials,
    maxResponseBytes: 1024,
    defaultTimeoutMs: 2000,
    maxTimeoutMs: 3000,
    maxRedirects: 3,
    ...overrides,
  });
}
