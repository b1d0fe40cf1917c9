// The SDK's XML reader and Query-protocol helpers (plugin-sdk/assembly/xml/, query-protocol.ts) in a compiled module,
// and a seeded run of the XML fuzzer against saxes (npm run fuzz:xml runs 100,000 cases).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVERSARY_CASES, judgeXml, runXmlFuzz, runXmlTimeFuzz, XmlTimer } from '../../../lab/fuzz/xml/index.ts';
import { compileFixture, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let xml: TestPlugin;
beforeAll(async () => {
  xml = await load(await compileFixture('xml'));
}, 120_000);
afterAll(async () => {
  await xml?.plugin.close();
});

const tree = (doc: string, path: string, child = '') => xml.json('tree_probe', { doc, path, child });

const DESCRIBE_INSTANCES = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>r1</requestId>
  <reservationSet>
    <item><instancesSet>
      <item><instanceId>i-1</instanceId><privateDnsName>ip-10-0-0-1.ec2.internal</privateDnsName></item>
      <item><instanceId>i-2</instanceId><privateDnsName/></item>
    </instancesSet></item>
    <item><instancesSet><item><instanceId>i-3</instanceId></item></instancesSet></item>
  </reservationSet>
</DescribeInstancesResponse>`;

/** Twelve attributes, b0 to b11: more than the reader compares in turn. */
const MANY = Array.from({ length: 12 }, (_, i) => ` b${i}=""`).join('');

describe('XmlElement', () => {
  it('reaches every match of a path across repeated parents, by local name', async () => {
    expect(await tree(DESCRIBE_INSTANCES, 'reservationSet/item/instancesSet/item', 'instanceId')).toMatchObject({
      error: '',
      root: 'DescribeInstancesResponse',
      childTexts: ['i-1', 'i-2', 'i-3'],
    });
    const prefixed = '<ec2:r xmlns:ec2="u"><ec2:a>1</ec2:a><a>2</a></ec2:r>';
    expect(await tree(prefixed, 'a')).toMatchObject({ root: 'r', texts: ['1', '2'], pathText: '1' });
    expect(await tree(DESCRIBE_INSTANCES, 'nothing/here')).toMatchObject({ texts: [], pathText: '' });
  });

  it('decodes entities, character references and CDATA, and normalizes line ends', async () => {
    const doc = '<r><a>x &amp; &lt;y&gt; &quot;&apos; &#65;&#x1F600;<![CDATA[<raw> & ]]>\r\nz</a></r>';
    expect(await tree(doc, 'a')).toMatchObject({ texts: ['x & <y> "\' A😀<raw> & \nz'] });
    const cdata = '<r><a><![CDATA[1\r\n2\r3\n]]>4&#x9;\r</a></r>';
    expect(await tree(cdata, 'a')).toMatchObject({ texts: ['1\n2\n3\n4\t\n'] });
  });

  it("joins an element's own text runs around children, comments and CDATA", async () => {
    const doc = "<r><a>x<!-- c -->y<b>not a's</b><![CDATA[z]]><?p?>&amp;</a></r>";
    expect(await tree(doc, 'a')).toMatchObject({ texts: ['xyz&'] });
  });

  it('refuses malformed documents with the place and the reason', async () => {
    const cases: [string, string][] = [
      ['<r><a></b></r>', 'line 1, column 10: end tag </b> does not match <a>'],
      ['<r>', 'unexpected end of document inside <r>'],
      ['', 'no root element'],
      ['<r/><r/>', 'a second root element'],
      ['<r>&nbsp;</r>', 'unknown entity &nbsp;'],
      ['<r>&#xD800;</r>', '&#xD800; is not a character reference to an XML character'],
      ['<r a="1" a="2"/>', 'attribute a given twice'],
      // Past 8 attributes the names are sorted once per tag; the repeated name is still the first problem.
      [`<r${MANY} b3="x"/>`, `column ${MANY.length + 4}: attribute b3 given twice`],
      [`<r${MANY} b3="x" c="<"/>`, `column ${MANY.length + 4}: attribute b3 given twice`],
      [`<r${MANY} c="<" b3="x"/>`, '< in an attribute value'],
      [`<r${MANY} b3`, `column ${MANY.length + 4}: attribute b3 given twice`],
      ['<r a=1/>', 'expected a quoted the value of attribute a'],
      ['<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>', 'a DOCTYPE is not supported'],
      ['<r>\n<!-- a -- b --></r>', 'line 2, column 8: -- inside a comment'],
      ['<r>a]]>b</r>', ']]> in character data'],
      ['<r>\u0001</r>', 'character U+1 is not allowed in XML'],
      ['<r/><?xml version="1.0"?>', '<?xml is only allowed as the XML declaration at the very start'],
      ['<?xml encoding="UTF-8"?><r/>', 'unexpected encoding in the XML declaration'],
      [`${'<n>'.repeat(300)}${'</n>'.repeat(300)}`, 'XML nested deeper than 256 levels'],
    ];
    for (const [doc, message] of cases) {
      const out = (await tree(doc, 'a')) as { error: string };
      expect(out.error, doc).toContain(message);
      expect(out.error, doc).toMatch(/^invalid XML at line \d+, column \d+: /);
    }
  });
});

describe('reading time', () => {
  it("reads the adversary round's documents (40,000 attributes, 1 M &amp;, 200,000 text runs) each within 1 s", async () => {
    const timer = await XmlTimer.create();
    try {
      const seen: Record<string, { ms: number; events?: number; elementText?: number }> = {};
      for (const [name, doc] of Object.entries(ADVERSARY_CASES)) {
        const { result } = await timer.time(doc, 1); // every reading, for the sign that the work was done
        expect(result, name).toMatchObject({ accepted: true, tree: true });
        // The budget is for the reading a provider makes of an answer (HttpResult.xml(), XmlElement.parseBytes).
        const { cpuMs } = await timer.time(doc, 2, 'time_tree');
        seen[name] = { ms: Math.round(cpuMs), events: result.events, elementText: result.elementText };
      }
      // The attributes' tag and its end, the 1 M references decoded, the 200,000 runs joined.
      expect(seen['40,000 attributes (389 KB)']).toMatchObject({ events: 2 });
      expect(seen['1 M &amp; (5 MB)']).toMatchObject({ events: 3, elementText: 1_000_000 });
      expect(seen['200,000 text runs (1.6 MB)']).toMatchObject({ events: 200_002, elementText: 200_000 });
      for (const [name, { ms }] of Object.entries(seen)) expect(ms, name).toBeLessThan(1_000);
    } finally {
      await timer.close();
    }
  }, 120_000);

  it('grows linearly with every adversarial construct (time at 4n at most 6x time at n)', async () => {
    const report = await runXmlTimeFuzz({
      seeds: 1,
      seed: 7,
      firstBytes: 32 * 1024,
      steps: 3,
      floorMs: 15,
      maxRatio: 6,
    });
    expect(report.findings).toEqual([]);
    // Every shape ran its three sizes, up to about half a megabyte.
    expect(report.series).toHaveLength(9);
    for (const series of report.series) {
      expect(series.bytes, series.shape).toHaveLength(3);
      expect(series.bytes[2], series.shape).toBeGreaterThan(400_000);
    }
  }, 300_000);
});

describe('XmlReader', () => {
  it('reads an element text across children and comments, then goes on after its end', async () => {
    const out = await xml.json('element_text_probe', { doc: '<r>a<b>b<!-- c -->c</b>d</r>' });
    expect(out).toEqual({ text: 'abcd', after: 0, error: '' });
  });
});

describe('QueryRequest', () => {
  it('form-encodes Action, Version, flat lists, member lists and filters with the RFC 3986 unreserved set', async () => {
    const body = await xml.call('query_probe', {
      action: 'DescribeInstances',
      version: '2016-11-15',
      params: [['Tag Key', "a/b=c&d*'()~é"]],
      lists: [['InstanceId', ['i-1', 'i-2']]],
      members: [['TargetGroupArns', ['arn:aws:x/1']]],
      filters: [
        ['private-dns-name', ['ip-10-0-0-1.ec2.internal']],
        ['tag:kubernetes.io/cluster/c', ['owned', 'shared']],
      ],
    });
    expect(body).toBe(
      'Action=DescribeInstances&Version=2016-11-15&Tag%20Key=a%2Fb%3Dc%26d%2A%27%28%29~%C3%A9' +
        '&InstanceId.1=i-1&InstanceId.2=i-2&TargetGroupArns.member.1=arn%3Aaws%3Ax%2F1' +
        '&Filter.1.Name=private-dns-name&Filter.1.Value.1=ip-10-0-0-1.ec2.internal' +
        '&Filter.2.Name=tag%3Akubernetes.io%2Fcluster%2Fc&Filter.2.Value.1=owned&Filter.2.Value.2=shared',
    );
    // What a form parser reads back is what was put in.
    expect(new URLSearchParams(body).get('Tag Key')).toBe("a/b=c&d*'()~é");
  });
});

describe('fuzz:xml', () => {
  it('finds no unexplained divergence from saxes and no trap in 20,000 seeded cases', async () => {
    const report = await runXmlFuzz({ cases: 20_000, seed: 21 });
    expect(report.findings).toEqual([]);
    expect(report.divergences).toBe(0);
    expect(report.traps).toBe(0);
    // The run did its work: many documents accepted by both, many mutated, some past the depth limit.
    expect(report.valid).toBeGreaterThan(7_000);
    expect(report.mutated).toBeGreaterThan(10_000);
    expect(report.allowedByRule['depth-limit']).toBeGreaterThan(0);
  }, 120_000);

  it('judges a disagreement with saxes as a divergence (the fuzzer can fail)', () => {
    const doc = new TextEncoder().encode('<r a="1">x</r>');
    const events = JSON.stringify([
      ['s', 'r', [['a', '1']]],
      ['t', 'x'],
      ['e', 'r'],
    ]);
    expect(judgeXml(doc, { readerAccepted: true, treeAccepted: true, text: events })).toEqual({ kind: 'agree' });
    const wrongText = JSON.stringify([
      ['s', 'r', [['a', '1']]],
      ['t', 'y'],
      ['e', 'r'],
    ]);
    expect(judgeXml(doc, { readerAccepted: true, treeAccepted: true, text: wrongText }).kind).toBe('divergence');
    expect(judgeXml(doc, { readerAccepted: false, treeAccepted: false, text: 'x' }).kind).toBe('divergence');
    expect(judgeXml(doc, { readerAccepted: true, treeAccepted: false, text: events }).kind).toBe('divergence');
    const bad = new TextEncoder().encode('<r>&nbsp;</r>');
    expect(judgeXml(bad, { readerAccepted: true, treeAccepted: true, text: '[]' }).kind).toBe('divergence');
  });
});
