// The vsphere entry of the credentials file (vsphere-entry.ts) and the pieces of its login flow (vsphere-flow.ts)
// that read vCenter's answers: the session cookie, a NotAuthenticated fault (the answers here are vcsim's, as
// recorded), the XML escaping of the password, and which session goes to which path. The logins themselves run
// against vcsim in test/e2e/vsphere/vsphere-login.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCredentialFile, parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import { type LoginSession, sessionHeaders } from '../../../host/src/plugin/broker/login-flow.ts';
import { readVsphereLoginSync } from '../../../host/src/plugin/broker/vsphere-entry.ts';
import {
  isNotAuthenticatedFault,
  soapCookie,
  VsphereFlow,
  xmlEscape,
} from '../../../host/src/plugin/broker/vsphere-flow.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-vsphere-entry-'));
const WHERE = join(dir, 'credentials.json');
const AT = `${WHERE}: credentials[0] (vc)`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = { server: 'vcenter.example', username: 'ccm@vsphere.local', passwordFile: 'password' };
const fileOf = (entry: Record<string, unknown>): string => JSON.stringify({ credentials: [{ name: 'vc', ...entry }] });
const parse = (entry: Record<string, unknown>) => parseCredentialFile(fileOf(entry), WHERE)[0];

const FAULT_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode>';
const NOT_AUTHENTICATED =
  `${FAULT_HEAD}<faultstring></faultstring><detail><NotAuthenticatedFault xmlns="urn:vim25" xsi:type="NotAuthenticated">` +
  '<object type="ServiceInstance">ServiceInstance</object><privilegeId>System.View</privilegeId></NotAuthenticatedFault>' +
  '</detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>';
const NO_PERMISSION =
  `${FAULT_HEAD}<faultstring>Permission to perform this operation was denied.</faultstring><detail>` +
  '<NoPermissionFault xmlns="urn:vim25" xsi:type="NoPermission"><privilegeId>VirtualMachine.Interact.PowerOff</privilegeId>' +
  '</NoPermissionFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>';

describe('the vsphere entry', () => {
  it('takes its one host from the server (443 by default) and files relative to the credentials file', () => {
    const credential = parse({ vsphere: { ...BASE, caFile: 'ca.pem' } });
    expect(credential?.hosts).toEqual([{ hostname: 'vcenter.example', port: 443 }]);
    expect(credential?.secret).toEqual({
      kind: 'login',
      login: {
        flow: 'vsphere',
        entry: {
          ...BASE,
          server: 'vcenter.example:443',
          passwordFile: join(dir, 'password'),
          caFile: join(dir, 'ca.pem'),
        },
      },
    });
    expect(parse({ vsphere: { ...BASE, server: '127.0.0.1:8989' }, insecure: true })?.hosts).toEqual([
      { hostname: '127.0.0.1', port: 8989 },
    ]);
  });

  it('refuses what is missing, unknown, malformed or contradictory, naming the field', () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ vsphere: { ...BASE, server: undefined } }, /vsphere\.server is required/],
      [{ vsphere: { ...BASE, server: 'https://vc.example/sdk' } }, /vsphere\.server: .*host or host:port/],
      [{ vsphere: { ...BASE, username: undefined } }, /vsphere\.username is required/],
      [{ vsphere: { ...BASE, passwordFile: undefined } }, /vsphere\.passwordFile is required/],
      [{ vsphere: { ...BASE, password: 'inline' } }, /vsphere: unknown field 'password'/],
      [{ vsphere: { ...BASE, username: 'a\nb' } }, /vsphere\.username must be a non-empty single-line string/],
      [{ vsphere: 'vc.example' }, /\.vsphere must be an object/],
      [{ vsphere: BASE, hosts: ['vcenter.example'] }, /a vsphere entry's host is its server: no hosts/],
      [{ vsphere: BASE, insecure: true }, /insecure: 'vcenter\.example:443' is not a loopback address/],
      [{ vsphere: BASE, bearerToken: 't' }, /needs exactly one of .*vsphere/],
      [{ vsphere: BASE, hostsFromCatalog: true }, /hostsFromCatalog is for a login entry \(keystone\)/],
    ];
    for (const [entry, message] of refusals) expect(() => parse(entry), JSON.stringify(entry)).toThrow(message);
  });

  it('reads the password without its final newline, and checks the files', () => {
    writeFileSync(join(dir, 'password'), `p&<"'>w\n`);
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'two-lines'), 'a\nb\n');
    writeFileSync(join(dir, 'empty'), '\n');
    const entryOf = (fields: Record<string, string>) => {
      const secret = parse({ vsphere: { ...BASE, ...fields } })?.secret;
      if (secret?.kind !== 'login' || secret.login.flow !== 'vsphere') throw new Error('not a vsphere entry');
      return secret.login.entry;
    };
    expect(readVsphereLoginSync(entryOf({ caFile: 'ca.pem' }), AT)).toMatchObject({
      server: 'vcenter.example:443',
      password: `p&<"'>w`,
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
    });
    expect(() => readVsphereLoginSync(entryOf({ passwordFile: 'two-lines' }), AT)).toThrow(/holds more than one line/);
    expect(() => readVsphereLoginSync(entryOf({ passwordFile: 'empty' }), AT)).toThrow(/empty is empty/);
    expect(() => readVsphereLoginSync(entryOf({ caFile: 'password' }), AT)).toThrow(/holds no PEM certificate/);
    expect(() => checkCredentialFile(fileOf({ vsphere: { ...BASE, passwordFile: 'missing' } }), WHERE)).toThrow(
      /\.vsphere: cannot read .*missing: ENOENT/,
    );
  });
});

describe('the vsphere login flow', () => {
  it('escapes the password for the XML body', () => {
    expect(xmlEscape(`a&b<c>d"e'f`)).toBe('a&#38;b&#60;c&#62;d&#34;e&#39;f');
  });

  it('finds the session cookie, quoted or not, among other cookies', () => {
    expect(soapCookie('vmware_soap_session=de4907fa-55f9; HttpOnly')).toBe('de4907fa-55f9');
    expect(soapCookie('other=1; Path=/, vmware_soap_session="52ab"; Path=/; HttpOnly; Secure')).toBe('"52ab"');
    expect(soapCookie('vmware_soap_session=; Path=/')).toBeUndefined();
    expect(soapCookie('xvmware_soap_session=1')).toBeUndefined();
    expect(soapCookie(undefined)).toBeUndefined();
  });

  it('takes a NotAuthenticated fault or a 401 as a refused session, and nothing else', () => {
    const flow = new VsphereFlow({ server: 'vc.example:443', username: 'ccm', password: 'pw' });
    const answer = (status: number, body: string) => ({ status, chunks: [Buffer.from(body)] });
    expect(
      isNotAuthenticatedFault([
        Buffer.from(NOT_AUTHENTICATED.slice(0, 300)),
        Buffer.from(NOT_AUTHENTICATED.slice(300)),
      ]),
    ).toBe(true);
    expect(flow.refused(answer(500, NOT_AUTHENTICATED))).toBe(true);
    expect(flow.refused(answer(401, ''))).toBe(true);
    expect(flow.refused(answer(500, NO_PERMISSION))).toBe(false);
    expect(flow.refused(answer(200, '<CurrentTimeResponse>NotAuthenticated</CurrentTimeResponse>'))).toBe(false);
    expect(flow.refused(answer(403, ''))).toBe(false);
    expect(flow.secrets).toEqual(['pw', Buffer.from('ccm:pw').toString('base64')]);
  });

  it('sends the SOAP cookie to /sdk, the REST session to /rest/, and nothing elsewhere', () => {
    const session: LoginSession = {
      headers: {},
      routes: [
        { pathPrefix: '/sdk', headers: { cookie: 'vmware_soap_session=c' } },
        { pathPrefix: '/rest/', headers: { 'vmware-api-session-id': 'r' } },
      ],
      lifetimeMs: 1,
      secrets: [],
      data: undefined,
    };
    expect(sessionHeaders(session, new URL('https://vc.example/sdk'))).toEqual({ cookie: 'vmware_soap_session=c' });
    expect(sessionHeaders(session, new URL('https://vc.example/rest/com/vmware/cis/tagging/category'))).toEqual({
      'vmware-api-session-id': 'r',
    });
    expect(sessionHeaders(session, new URL('https://vc.example/ui/'))).toEqual({});
  });
});
