// The host's vSphere login against vcsim (lab/clouds/vsphere) with its credentials checked, without a plugin: the
// broker, given a `vsphere` credentials entry, logs in over SOAP (the password, with characters XML escapes, in the
// Login body) and REST, attaches the SOAP cookie to /sdk and the REST session to /rest/, hides both from the answers,
// and logs in once more when vcsim refuses a session (SOAP: a NotAuthenticated fault; REST: 401).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { HostAllowList } from '../../../host/src/plugin/broker/allow-list.ts';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { startVcsim, type Vcsim } from '../../../lab/clouds/vsphere/index.ts';

interface Answer {
  status?: number;
  body?: string;
  error?: { code: string; message: string };
}

let vc: Vcsim;
let dir: string;
const stores: CredentialStore[] = [];
const brokers: HttpBroker[] = [];

beforeAll(async () => {
  vc = await startVcsim();
  dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-vsphere-login-'));
});

afterAll(async () => {
  for (const b of brokers) b.close();
  for (const s of stores) s.close();
  await vc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A broker whose credentials file holds one vsphere entry for vcsim with `password`; logged in. */
async function brokerWith(password: string): Promise<{ broker: HttpBroker; store: CredentialStore }> {
  const name = `vc-${stores.length}`;
  writeFileSync(join(dir, `${name}.password`), `${password}\n`);
  const file = join(dir, `${name}.json`);
  const vsphere = { server: vc.server, username: vc.username, passwordFile: `${name}.password`, caFile: vc.ca.caFile };
  writeFileSync(file, JSON.stringify({ credentials: [{ name, vsphere }] }));
  const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: silentLogger });
  stores.push(store);
  await store.startLogins();
  const broker = new HttpBroker({
    allowList: new HostAllowList([vc.server]),
    credentials: store,
    maxResponseBytes: 1048576,
    defaultTimeoutMs: 10_000,
    maxTimeoutMs: 10_000,
    maxRedirects: 0,
    tls: { ca: vc.ca.caPem },
  });
  brokers.push(broker);
  return { broker, store };
}

async function send(broker: HttpBroker, method: string, path: string, body = '', headers = {}): Promise<Answer> {
  const request = { method, url: `https://${vc.server}${path}`, headers, body, timeoutMs: 10_000 };
  const answer = await broker.handle(Buffer.from(JSON.stringify(request)), new AbortController().signal);
  return JSON.parse(Buffer.from(answer).toString('utf8')) as Answer;
}

const soap = (inner: string): string =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">' +
  `<soapenv:Body>${inner}</soapenv:Body></soapenv:Envelope>`;
const SOAP_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: 'urn:vim25/6.5' };
// Needs a session (vcsim answers it without one with NotAuthenticated).
const CURRENT_TIME = soap(
  '<CurrentTime xmlns="urn:vim25"><_this type="ServiceInstance">ServiceInstance</_this></CurrentTime>',
);
// The session's own record: in vcsim its key is the cookie's value, which the plugin must not see.
const CURRENT_SESSION = soap(
  '<RetrievePropertiesEx xmlns="urn:vim25"><_this type="PropertyCollector">propertyCollector</_this><specSet>' +
    '<propSet><type>SessionManager</type><pathSet>currentSession</pathSet></propSet>' +
    '<objectSet><obj type="SessionManager">SessionManager</obj></objectSet></specSet><options/></RetrievePropertiesEx>',
);

const currentTime = (broker: HttpBroker): Promise<Answer> => send(broker, 'POST', '/sdk', CURRENT_TIME, SOAP_HEADERS);
const categories = (broker: HttpBroker): Promise<Answer> =>
  send(broker, 'GET', '/rest/com/vmware/cis/tagging/category');

describe('vsphere login against vcsim', () => {
  it('attaches the SOAP session to /sdk and the REST session to /rest/, and shows neither', async () => {
    expect(vc.password).toMatch(/[&<>"']/);
    const { broker } = await brokerWith(vc.password);
    const time = await currentTime(broker);
    expect(time.status).toBe(200);
    expect(time.body).toContain('<CurrentTimeResponse');
    expect(await categories(broker)).toMatchObject({ status: 200, body: expect.stringMatching(/^\{"value":/) });

    const [key] = await vc.soapSessions();
    expect(key).toBeDefined();
    const session = await send(broker, 'POST', '/sdk', CURRENT_SESSION, SOAP_HEADERS);
    expect(session.status).toBe(200);
    expect(session.body).toContain(`<userName>${vc.username}</userName>`);
    expect(session.body).toContain('<key>[REDACTED]</key>');
    expect(session.body).not.toContain(key);
  });

  it('logs in again once when vcsim ended the SOAP session (NotAuthenticated)', async () => {
    const { broker } = await brokerWith(vc.password);
    expect((await currentTime(broker)).status).toBe(200);
    const before = await vc.soapSessions();
    expect(await vc.terminateSoapSessions()).toBe(before.length);
    expect(await vc.soapSessions()).toEqual([]);
    expect((await currentTime(broker)).status).toBe(200);
    const after = await vc.soapSessions();
    expect(after).toHaveLength(1);
    expect(before).not.toContain(after[0]);
  });

  it('logs in again once when vcsim forgot the REST session (401)', async () => {
    const { broker } = await brokerWith(vc.password);
    expect((await categories(broker)).status).toBe(200);
    await vc.restart();
    expect(await vc.soapSessions()).toEqual([]);
    expect(await categories(broker)).toMatchObject({ status: 200, body: expect.stringMatching(/^\{"value":/) });
    // The new login made a SOAP session too.
    expect(await vc.soapSessions()).toHaveLength(1);
  });

  it("fails the load naming the credential and vcsim's fault for a wrong password, never quoting it", async () => {
    const wrong = `${vc.password}-wrong`;
    const failed = brokerWith(wrong);
    await expect(failed).rejects.toThrow(
      /credential 'vc-\d+': login to vsphere https:\/\/127\.0\.0\.1:\d+ failed: SOAP Login answered 500 \(InvalidLogin: Login failure\)/,
    );
    await expect(failed).rejects.not.toThrow(wrong);
  });
});
