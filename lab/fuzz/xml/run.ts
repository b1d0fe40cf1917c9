// Runs the XML fuzzer: generated and mutated documents through the SDK's XmlReader and XmlElement
// (plugin-sdk/tests/assembly/xml.ts, built -O3 as plugins are) against saxes, in batches, with the JSON fuzzer's
// batch runner (a batch that traps is replayed case by case on fresh instances).
import { join } from 'node:path';
import { compileAssemblyScript, SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';
import { ascii, type Dictionary, mutate, UTF8_HOSTILE, UTF8_SEQUENCES, Random } from '../json/index.ts';
import { type DifferentialReport, runDifferential } from '../differential.ts';
import { generateDocument } from './generate.ts';
import { judgeXml, type XmlAllowedDivergence } from './judge.ts';

export type XmlFuzzReport = DifferentialReport<XmlAllowedDivergence>;

const encoder = new TextEncoder();

export const XML_DICTIONARY: Dictionary = {
  interesting: [...ascii('<>/?!="\'&;#x:-[] \t\r\nAa0'), ...UTF8_HOSTILE],
  sequences: [
    ...UTF8_SEQUENCES,
    ...[
      '<!--',
      '-->',
      '--',
      '<![CDATA[',
      ']]>',
      '<?pi x?>',
      '<?xml version="1.0"?>',
      '&amp;',
      '&foo;',
      '&#0;',
      '&#x10FFFF;',
      '&#xD800;',
      '<!DOCTYPE r>',
      '</a>',
      '<a>',
      '<b/>',
      ' a="1"',
      'xmlns:p="u"',
      '<p:x>',
      '\r\n',
    ].map(ascii),
  ],
};

export async function compileXmlFuzzModule(): Promise<Uint8Array> {
  const entry = join(SDK_DIR, 'tests', 'assembly', 'xml.ts');
  return (await compileAssemblyScript(entry, { cacheDir: join(SDK_DIR, 'tests', 'build', 'fuzz') })).wasm;
}

/** The case `index` of a run: deterministic in (seed, index). */
export function xmlFuzzCase(seed: number, index: number): { doc: Uint8Array; mutated: boolean } {
  const rng = new Random((seed ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const doc = encoder.encode(generateDocument(rng));
  return rng.chance(0.6) ? { doc: mutate(rng, doc, XML_DICTIONARY), mutated: true } : { doc, mutated: false };
}

export async function runXmlFuzz(options: { cases: number; seed: number; batch?: number }): Promise<XmlFuzzReport> {
  return runDifferential({
    wasm: await compileXmlFuzzModule(),
    ...options,
    makeCase: xmlFuzzCase,
    judge: (c, outcome) => {
      // The module's flags as the batch runner reads them: bit 0 (treeAccepted) is the reader's, bit 1
      // (skipAccepted) XmlElement's.
      const sdk = { readerAccepted: outcome.treeAccepted, treeAccepted: outcome.skipAccepted, text: outcome.text };
      return { verdict: judgeXml(c.doc, sdk), accepted: sdk.readerAccepted };
    },
  });
}
