// Cases of the SOAP fuzzer: strings for the request writer, with every character XML treats specially (the five
// escapes, tab, CR, LF, C0 controls, U+FFFE/U+FFFF, lone and paired surrogates, ]]>), and vim25-shaped answers
// (RetrievePropertiesEx results and faults) written every way XML allows: envelope prefixes, attribute order and
// quotes, entities and character references, CDATA, comments, white space, CRLF; some then cut or spliced.
import { Random } from '../json/index.ts';

/** An integer in [0, n). */
function below(rng: Random, n: number): number {
  return rng.int(0, Math.max(0, n - 1));
}

const PIECES = [
  'a',
  'Z',
  '0',
  ' ',
  '-',
  '.',
  '/',
  ':',
  '&',
  '<',
  '>',
  '"',
  "'",
  '\t',
  '\n',
  '\r',
  '\r\n',
  ']]>',
  '&amp;',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  'é',
  '中',
  '\ufffe',
  '\uffff',
  '\ud83d\ude00',
  '\ud800',
  '\udc00',
  'vm-42',
  'DC0',
  'urn:vim25',
];

/** A value for the writer: a few pieces, or a longer run of them. */
export function randomValue(rng: Random): string {
  const n = rng.chance(0.1) ? below(rng, 40) : below(rng, 6);
  let out = '';
  for (let i = 0; i < n; i++) out += rng.pick(PIECES);
  return out;
}

/** What XML can carry of `value`: each character XML 1.0 excludes replaced by U+FFFD, as the writer does. */
export function xmlCarried(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value.slice(i, i + 2);
        i++;
      } else out += '\ufffd';
    } else if ((c >= 0xdc00 && c <= 0xdfff) || (c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c >= 0xfffe) {
      out += '\ufffd';
    } else out += value[i];
  }
  return out;
}

// Text as an answer would write it: printable, escaped, sometimes as references or CDATA.
const TEXT_PIECES = [
  'a',
  'Q',
  '7',
  ' ',
  '-',
  '.',
  ':',
  '/',
  'é',
  '中',
  '😀',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&#65;',
  '&#x263A;',
  '\n',
  '\t',
];

function text(rng: Random, max = 5): string {
  let out = '';
  const n = below(rng, max + 1);
  for (let i = 0; i < n; i++) out += rng.pick(TEXT_PIECES);
  if (out.length > 0 && rng.chance(0.15)) out = `<![CDATA[${out.replace(/&[a-z#0-9]+;/gi, 'x')}]]>`;
  return out;
}

function space(rng: Random): string {
  return rng.chance(0.5) ? '' : rng.pick([' ', '\n', '\r\n', '\n    ', '\t', '<!-- c -->', ' <!--x--> ']);
}

function attrs(rng: Random, list: [string, string][]): string {
  const shuffled = rng.chance(0.5) ? list : [...list].reverse();
  return shuffled.map(([k, v]) => (rng.chance(0.5) ? ` ${k}="${v}"` : ` ${k}='${v}'`)).join('');
}

function ref(rng: Random, name: string, withXsi: boolean): string {
  const type = rng.pick(['VirtualMachine', 'HostSystem', 'Datacenter', 'Folder', 'T&amp;x', '']);
  const list: [string, string][] = [['type', type]];
  if (withXsi) list.push([`${rng.pick(['xsi', 'x'])}:type`, 'ManagedObjectReference']);
  return `<${name}${attrs(rng, list)}>${space(rng)}${text(rng, 3)}${rng.pick(['vm-1', 'host-21', 'group-d1', ''])}</${name}>`;
}

function val(rng: Random): string {
  const kind = below(rng, 3);
  if (kind === 0) return ref(rng, 'val', true);
  if (kind === 1) return `<val${attrs(rng, [['xsi:type', rng.pick(['xsd:string', 'xsd:int'])]])}>${text(rng)}</val>`;
  const nics = Array.from(
    { length: below(rng, 3) },
    () => `<GuestNicInfo><ipAddress>${text(rng)}</ipAddress></GuestNicInfo>${space(rng)}`,
  );
  return `<val xsi:type="ArrayOfGuestNicInfo">${space(rng)}${nics.join('')}${text(rng, 2)}</val>`;
}

function objectContent(rng: Random): string {
  let out = `<objects>${space(rng)}${rng.chance(0.95) ? ref(rng, 'obj', false) : ''}`;
  for (let i = below(rng, 4); i > 0; i--) {
    const name = rng.pick(['name', 'parent', 'guest.net', 'summary.config.uuid', `p${text(rng, 2)}`]);
    out += `${space(rng)}<propSet><name>${name}</name>${space(rng)}${rng.chance(0.9) ? val(rng) : ''}</propSet>`;
  }
  for (let i = below(rng, 2); i > 0; i--) {
    const cause = rng.chance(0.8)
      ? `<fault xsi:type="${rng.pick(['NoPermission', 'vim25:NotAuthenticated', ''])}"/>`
      : '';
    out += `<missingSet><path>${text(rng, 2)}guest</path><fault>${cause}</fault></missingSet>`;
  }
  return `${out}${space(rng)}</objects>`;
}

function fault(rng: Random): string {
  const type = rng.pick(['NotAuthenticated', 'ManagedObjectNotFound', 'InvalidArgument']);
  const detailChild = rng.pick([
    `<${type}Fault xsi:type="${type}"><obj type="Folder">group-d1</obj></${type}Fault>`,
    `<${type}Fault/>`,
    `<x:${type}Fault xmlns:x="urn:vim25" x:type="x:${type}"/>`,
    '',
  ]);
  const detail = rng.chance(0.8) ? `<detail>${space(rng)}${detailChild}</detail>` : '';
  return `<soapenv:Fault><faultcode>ServerFaultCode</faultcode>${space(rng)}<faultstring>${text(rng)}</faultstring>${detail}</soapenv:Fault>`;
}

/** A vim25 answer: a RetrievePropertiesEx result (maybe empty) or a fault, in an envelope of any prefix. */
export function randomAnswer(rng: Random): string {
  const prefix = rng.pick(['soapenv', 'S', 'env']);
  let body: string;
  if (rng.chance(0.2)) body = fault(rng).replaceAll('soapenv:', `${prefix}:`);
  else {
    const objects = Array.from({ length: below(rng, 4) }, () => objectContent(rng)).join(space(rng));
    const token = rng.chance(0.3) ? `<token>${text(rng, 2)}1</token>` : '';
    const returnval = rng.chance(0.9) ? `<returnval>${token}${space(rng)}${objects}</returnval>` : '';
    body = `<RetrievePropertiesExResponse xmlns="urn:vim25">${space(rng)}${returnval}</RetrievePropertiesExResponse>`;
  }
  const doc =
    `${rng.chance(0.5) ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ''}` +
    `<${prefix}:Envelope xmlns:${prefix}="http://schemas.xmlsoap.org/soap/envelope/" ` +
    `xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `${space(rng)}<${prefix}:Body>${space(rng)}${body}${space(rng)}</${prefix}:Body></${prefix}:Envelope>`;
  return rng.chance(0.15) ? splice(rng, doc) : doc;
}

/** A cut, a repeated slice or a stray character: answers a broken proxy or a hostile server could send. */
function splice(rng: Random, doc: string): string {
  const at = below(rng, doc.length);
  const len = below(rng, Math.min(40, doc.length - at) + 1);
  const kind = below(rng, 3);
  if (kind === 0) return doc.slice(0, at) + doc.slice(at + len);
  if (kind === 1) return doc.slice(0, at) + doc.slice(at, at + len) + doc.slice(at);
  return doc.slice(0, at) + rng.pick(['<', '&', '"', '>', ']]>', '\u0000']) + doc.slice(at);
}
