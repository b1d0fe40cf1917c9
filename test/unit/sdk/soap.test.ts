// The SDK's SOAP helpers (plugin-sdk/assembly/soap.ts) in a compiled module: escaping in requests, faults and
// property collector answers as vim25 writes them, and a seeded run of the SOAP fuzzer against saxes
// (npm run fuzz:soap runs 20,000 cases).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSoapFuzzModule, runSoapFuzz } from '../../../lab/fuzz/soap/index.ts';
import { load, type TestPlugin } from '../../../lab/plugins/index.ts';

let soap: TestPlugin;
beforeAll(async () => {
  soap = await load(await compileSoapFuzzModule(false));
}, 300_000);
afterAll(async () => {
  await soap?.plugin.close();
});

const read = async (doc: string) =>
  ((await soap.json('soap_read', { docs: [doc] })) as { answers: unknown[] }).answers[0];
const envelope = (body: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"' +
  ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;

describe('SoapRequest', () => {
  it('escapes values and references, and replaces what XML cannot carry', async () => {
    const out = (await soap.json('soap_write', { values: ['a<b>&"c\'\r\n\t', 'x\u0001\ud800y'] })) as {
      envelopes: string[];
    };
    expect(out.envelopes[0]).toContain('<text>a&lt;b&gt;&amp;&quot;c&apos;&#13;&#10;&#9;</text>');
    expect(out.envelopes[0]).toContain('<ref type="a&lt;b&gt;&amp;&quot;c&apos;&#13;&#10;&#9;">');
    expect(out.envelopes[0]).toContain('<outer xsi:type="T0"><inner>');
    expect(out.envelopes[1]).toContain('<text>x\ufffd\ufffdy</text>');
    expect(out.envelopes[0]).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><soapenv:Envelope .*<soapenv:Body><Probe xmlns="urn:vim25">/,
    );
  });
});

describe('answers', () => {
  it('reads a RetrievePropertiesEx result: references, values, missing properties, the page token', async () => {
    const doc = envelope(
      '<RetrievePropertiesExResponse xmlns="urn:vim25"><returnval><token>2</token><objects>' +
        '<obj type="VirtualMachine">vm-42</obj>' +
        '<propSet><name>runtime.host</name><val xsi:type="ManagedObjectReference" type="HostSystem">host-21</val></propSet>' +
        '<propSet><name>guest.hostName</name><val xsi:type="xsd:string"> node-a &amp; b </val></propSet>' +
        '<missingSet><path>guest.net</path><fault><fault xsi:type="NoPermission"/></fault></missingSet>' +
        '</objects></returnval></RetrievePropertiesExResponse>',
    );
    expect(await read(doc)).toEqual({
      kind: 'result',
      token: '2',
      error: '',
      objects: [
        {
          obj: 'VirtualMachine:vm-42',
          props: { 'runtime.host': 'ref HostSystem:host-21', 'guest.hostName': 'text node-a & b' },
          missing: { 'guest.net': 'NoPermission' },
        },
      ],
    });
    const empty = envelope('<RetrievePropertiesExResponse xmlns="urn:vim25"></RetrievePropertiesExResponse>');
    expect(await read(empty)).toEqual({ kind: 'result', token: '', error: '', objects: [] });
  });

  it('reads faults by their detail type, with or without xsi:type', async () => {
    const fault = (detail: string) =>
      envelope(
        `<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>The session is not authenticated.</faultstring><detail>${detail}</detail></soapenv:Fault>`,
      );
    const notAuthenticated = {
      kind: 'fault',
      type: 'NotAuthenticated',
      code: 'ServerFaultCode',
      message: 'The session is not authenticated.',
    };
    expect(
      await read(
        fault(
          '<NotAuthenticatedFault xsi:type="NotAuthenticated"><object type="Folder">group-d1</object></NotAuthenticatedFault>',
        ),
      ),
    ).toEqual(notAuthenticated);
    expect(await read(fault('<NotAuthenticatedFault/>'))).toEqual(notAuthenticated);
    expect(await read('<html>proxy error</html>')).toEqual({ kind: 'none' });
  });

  it('agrees with saxes on 2,000 generated values and answers (seed 7)', async () => {
    const report = await runSoapFuzz({ cases: 2000, seed: 7, optimize: false });
    expect(report.findings).toEqual([]);
    expect(report.results).toBeGreaterThan(1000);
    expect(report.faults).toBeGreaterThan(200);
    expect(report.unreadable).toBeGreaterThan(50);
  }, 120_000);
});
