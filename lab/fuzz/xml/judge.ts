// The verdict on one XML case: the SDK's XmlReader against saxes (a well-kept, conforming, non-validating XML
// parser) on the same text (UTF-8 decoded as TextDecoder does). Both must accept with the same events (start tags
// with their attributes in order, text with adjacent runs and CDATA joined, end tags) or both refuse; XmlElement must
// accept exactly what the reader accepts. The SDK's deliberate differences are ALLOWED_DIVERGENCES, documented in
// plugin-sdk/README.md ("XML").
import { SaxesParser } from 'saxes';
import { AGREE, divergence, type DifferentialVerdict, word } from '../differential.ts';
import { firstDifference } from '../json/index.ts';

export interface XmlSdkOutcome {
  /** XmlReader read the document to its end. */
  readerAccepted: boolean;
  /** XmlElement.parseBytes accepted it. */
  treeAccepted: boolean;
  /** The reader's events as JSON, or its error. */
  text: string;
}

export type XmlEventRecord = ['s', string, [string, string][]] | ['t', string] | ['e', string];

export type XmlAllowedDivergence = 'depth-limit' | 'doctype-refused' | 'pi-target-space';

/** The limit XmlReader enforces (plugin-sdk/assembly/xml/reader.ts, XML_MAX_DEPTH). */
export const XML_MAX_DEPTH = 256;

export const XML_ALLOWED_DIVERGENCES: Record<XmlAllowedDivergence, string> = {
  'depth-limit': `elements nested deeper than ${XML_MAX_DEPTH} levels are refused (a provider walking the tree recursively must not meet a hostile depth)`,
  'doctype-refused':
    'a document type declaration is refused: no cloud API sends one, and its entities are the entity-expansion attack',
  'pi-target-space':
    'a processing instruction whose target is followed by neither white space nor ?> (<?a?b?>) is refused, as ' +
    'production 16 of XML 1.0 says; saxes accepts it',
};

export type XmlVerdict = DifferentialVerdict<XmlAllowedDivergence>;

type Reference =
  { ok: true; events: XmlEventRecord[]; maxDepth: number; doctype: boolean } | { ok: false; error: string };

const decoder = new TextDecoder('utf-8');

/** saxes' reading of the document, as the same events the SDK's test module writes. */
export function saxesEvents(doc: Uint8Array): Reference {
  const events: XmlEventRecord[] = [];
  let pending: string | null = null;
  let depth = 0;
  let maxDepth = 0;
  let doctype = false;
  const flush = () => {
    if (pending !== null) events.push(['t', pending]);
    pending = null;
  };
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    flush();
    maxDepth = Math.max(maxDepth, ++depth);
    events.push(['s', tag.name, Object.entries(tag.attributes)]);
  });
  parser.on('closetag', (tag) => {
    flush();
    depth--;
    events.push(['e', tag.name]);
  });
  const onText = (t: string) => {
    if (depth > 0) pending = (pending ?? '') + t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('doctype', () => {
    doctype = true;
  });
  try {
    parser.write(decoder.decode(doc)).close();
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  flush();
  return { ok: true, events, maxDepth, doctype };
}

export function judgeXml(doc: Uint8Array, sdk: XmlSdkOutcome): XmlVerdict {
  if (sdk.treeAccepted !== sdk.readerAccepted) {
    return divergence(`XmlElement ${word(sdk.treeAccepted)} what XmlReader ${word(sdk.readerAccepted)}`);
  }
  const ref = saxesEvents(doc);
  if (!ref.ok) return sdk.readerAccepted ? divergence(`the SDK accepted what saxes refuses (${ref.error})`) : AGREE;
  if (!sdk.readerAccepted) {
    if (ref.doctype && sdk.text.includes('a DOCTYPE is not supported'))
      return { kind: 'allowed', rule: 'doctype-refused' };
    if (sdk.text.includes('expected white space or ?> after <?')) return { kind: 'allowed', rule: 'pi-target-space' };
    if (ref.maxDepth > XML_MAX_DEPTH && sdk.text.includes(`nested deeper than ${XML_MAX_DEPTH} levels`)) {
      return { kind: 'allowed', rule: 'depth-limit' };
    }
    return divergence(`the SDK refused what saxes accepts: ${sdk.text}`);
  }
  let written: unknown;
  try {
    written = JSON.parse(sdk.text) as unknown;
  } catch (err) {
    return divergence(`the SDK's events are not JSON (${(err as Error).message}): ${sdk.text.slice(0, 200)}`);
  }
  const difference = firstDifference(ref.events, written, '$');
  return difference === undefined ? AGREE : divergence(difference);
}
