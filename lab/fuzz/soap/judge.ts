// The SOAP fuzzer's reference: saxes (a conforming, non-validating XML parser) reads each case, and the expected
// outcome is taken from its tree by the rules plugin-sdk/assembly/soap.ts states: local names, the Body's first
// child, an element's own text runs (CDATA included) trimmed, `type` unprefixed on references, a prefixed `type`
// as the xsi:type.
import { SaxesParser } from 'saxes';
import { xmlCarried } from './generate.ts';

interface Element {
  qname: string;
  attributes: [string, string][];
  children: Element[];
  text: string;
}

/** saxes' tree of `doc`; null when saxes refuses it. */
export function saxesTree(doc: string): Element | null {
  const parser = new SaxesParser();
  const open: Element[] = [];
  let root: Element | null = null;
  let failed = false;
  parser.on('error', () => {
    failed = true;
  });
  parser.on('doctype', () => {
    failed = true; // the SDK refuses a DOCTYPE (xml/README.md)
  });
  parser.on('opentag', (tag) => {
    const el: Element = {
      qname: tag.name,
      attributes: Object.entries(tag.attributes as Record<string, string>),
      children: [],
      text: '',
    };
    if (open.length > 0) open[open.length - 1]!.children.push(el);
    else root = el;
    open.push(el);
  });
  parser.on('closetag', () => {
    open.pop();
  });
  const onText = (t: string) => {
    if (open.length > 0) open[open.length - 1]!.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  try {
    parser.write(doc).close();
  } catch {
    return null;
  }
  return failed ? null : root;
}

const local = (qname: string) => qname.slice(qname.indexOf(':') + 1);
const child = (el: Element, name: string) => el.children.find((c) => local(c.qname) === name) ?? null;
const childText = (el: Element, name: string) => child(el, name)?.text ?? '';
const unprefixed = (el: Element, name: string) => el.attributes.find(([k]) => k === name)?.[1] ?? null;
const xsiType = (el: Element) => {
  const found = el.attributes.find(([k]) => local(k) === 'type' && k !== 'type');
  return found === undefined ? null : local(found[1]);
};
// AssemblyScript's String#trim and JavaScript's agree on white space (both follow ECMAScript's WhiteSpace and
// LineTerminator).
const trim = (s: string) => s.trim();

function moRef(el: Element | null): string | null {
  if (el === null) return null;
  const type = unprefixed(el, 'type');
  const value = trim(el.text);
  return type === null || type === '' || value === '' ? null : `${type}:${value}`;
}

export type Answer =
  | { kind: 'none' }
  | { kind: 'fault'; type: string; code: string; message: string }
  | {
      kind: 'result';
      token: string;
      error: string;
      objects: { obj: string; props: Record<string, string>; missing: Record<string, string> }[];
    };

/** What the SDK should read from `doc` (soap_read in plugin-sdk/tests/assembly/soap.ts). */
export function expectedAnswer(doc: string): Answer {
  const root = saxesTree(doc);
  const body = root !== null && local(root.qname) === 'Envelope' ? child(root, 'Body') : null;
  const first = body?.children[0];
  if (first === undefined) return { kind: 'none' };
  if (local(first.qname) === 'Fault') {
    const detail = child(first, 'detail');
    const object = detail?.children[0];
    let type = '';
    if (object !== undefined) {
      const name = local(object.qname);
      type = xsiType(object) ?? (name.endsWith('Fault') ? name.slice(0, -5) : name);
    }
    return {
      kind: 'fault',
      type,
      code: trim(childText(first, 'faultcode')),
      message: trim(childText(first, 'faultstring')),
    };
  }
  const out: Answer = { kind: 'result', token: '', error: '', objects: [] };
  const returnval = child(first, 'returnval');
  if (returnval === null) return out;
  out.token = trim(childText(returnval, 'token'));
  const objects = returnval.children.filter((c) => local(c.qname) === 'objects');
  for (const [i, o] of objects.entries()) {
    const obj = moRef(child(o, 'obj'));
    if (obj === null) {
      out.error = `objects[${i}] has no obj reference`;
      return out;
    }
    const props: Record<string, string> = {};
    for (const p of o.children.filter((c) => local(c.qname) === 'propSet')) {
      const v = child(p, 'val');
      if (v === null) continue;
      const name = trim(childText(p, 'name'));
      const ref = moRef(v);
      props[name] = ref !== null && v.children.length === 0 ? `ref ${ref}` : `text ${trim(v.text)}`;
    }
    const missing: Record<string, string> = {};
    for (const m of o.children.filter((c) => local(c.qname) === 'missingSet')) {
      const f = child(m, 'fault');
      const cause = f === null ? null : child(f, 'fault');
      missing[trim(childText(m, 'path'))] = cause === null ? '' : (xsiType(cause) ?? '');
    }
    out.objects.push({ obj, props, missing });
  }
  return out;
}

/** What an envelope of soap_write should carry for `value`; a problem when saxes reads something else. */
export function judgeWritten(value: string, index: number, envelope: string): string | null {
  const root = saxesTree(envelope);
  const probe = root === null ? undefined : child(root, 'Body')?.children[0];
  if (probe === undefined) return `the envelope for ${JSON.stringify(value)} is not XML saxes reads`;
  const want = xmlCarried(value);
  const text = child(probe, 'text')?.text;
  const ref = child(probe, 'ref');
  const outer = child(probe, 'outer');
  const got = [text, ref?.text, ref === null ? null : unprefixed(ref, 'type'), outer && child(outer, 'inner')?.text];
  if (got.some((g) => g !== want)) return `${JSON.stringify(value)} came back as ${JSON.stringify(got)}`;
  const type = outer === null ? null : unprefixed(outer, 'xsi:type');
  if ((value.length > 0 ? `T${index}` : null) !== type) return `xsi:type of <outer> is ${type}`;
  return null;
}
