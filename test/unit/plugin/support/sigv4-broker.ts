// A loopback server behind an awsSigV4 credential and a broker that signs for it: the SigV4 broker tests' set-up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialStore } from '../../../../host/src/plugin/broker/credential-store.ts';
import type { HttpBroker, HttpBrokerOptions } from '../../../../host/src/plugin/broker/http-broker.ts';
import { type Route, startServer, type TestServer } from './http-servers.ts';
import { recordingLogger } from './recording-logger.ts';
import { testBroker } from './test-broker.ts';

export const SIGV4_KEY = {
  accessKeyId: 'AKIAEXAMPLE000000001',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzzzSECRET',
};

export interface SigV4Broker {
  server: TestServer;
  broker: HttpBroker;
  close: () => Promise<void>;
}

/** `routes` served on loopback, signed for as ec2 in us-east-1 with SIGV4_KEY; `overrides` for the broker. */
export async function startSigV4Broker(
  routes: Record<string, Route>,
  overrides: Partial<HttpBrokerOptions> = {},
): Promise<SigV4Broker> {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-broker-sigv4-'));
  const server = await startServer(routes);
  writeFileSync(join(dir, 'id'), SIGV4_KEY.accessKeyId);
  writeFileSync(join(dir, 'secret'), SIGV4_KEY.secretAccessKey);
  const file = join(dir, 'credentials.json');
  const awsSigV4 = { accessKeyIdFile: 'id', secretAccessKeyFile: 'secret', region: 'us-east-1', service: 'ec2' };
  writeFileSync(
    file,
    JSON.stringify({ credentials: [{ name: 'aws', hosts: [server.host], awsSigV4, insecure: true }] }),
  );
  const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
  const broker = testBroker([server.host], store, { maxResponseBytes: 1 << 20, ...overrides });
  return {
    server,
    broker,
    close: async () => {
      broker.close();
      store.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
