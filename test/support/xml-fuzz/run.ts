// Runs the XML fuzzer: generated and mutated documents through the SDK's XmlReader and XmlElement
// (plugin-sdk/tests/assembly/xml.ts, built -O3 as plugins are) against saxes, in batches, with the JSON fuzzer's
// batch runner (a batch that traps is replayed case by case on fresh instances).
import { join } from 'node:path';
import { compileAssemblyScript, SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';
import { ascii, type Dictionary, mutate, UTF8_HOSTILE, UTF8_SEQUENCES } from '../json-fuzz/mutate.ts';
import { Random } from '../json-fuzz/random.ts';
import { BatchRunner, type FuzzFinding } from '../json-fuzz/run.ts';
import { generateDocument } from './generate.ts';
import { judgeXml, type XmlAllowedDivergence, type XmlSdkOutcome } from './judge.ts';

export interface XmlFuzzReport {
  cases: number;
  seed: number;
  mutated: number;
  /** Cases saxes and the SDK both accepted. */
  valid: number;
  divergences: number;
  allowedDivergences: number;
  allowedByRule: Partial<Record<XmlAllowedDivergence, number>>;
  traps: number;
  durationMs: number;
  findings: FuzzFinding[];
}

const MAX_FINDINGS = 20;
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
  const runner = new BatchRunner(await compileXmlFuzzModule());
  const started = performance.now();
  const report: XmlFuzzReport = {
    cases: options.cases,
    seed: options.seed,
    mutated: 0,
    valid: 0,
    divergences: 0,
    allowedDivergences: 0,
    allowedByRule: {},
    traps: 0,
    durationMs: 0,
    findings: [],
  };
  const batch = options.batch ?? 500;
  try {
    for (let first = 0; first < options.cases; first += batch) {
      const cases = [];
      for (let i = first; i < Math.min(first + batch, options.cases); i++) cases.push(xmlFuzzCase(options.seed, i));
      const outcomes = await runner.outcomes(cases.map((c) => c.doc));
      cases.forEach((c, k) => {
        const o = outcomes[k];
        // The batch runner's flags: bit 0 (its treeAccepted) is the reader's, bit 1 (skipAccepted) the tree's.
        const sdk = o instanceof Error || o === undefined ? (o ?? new Error('no outcome')) : toXmlOutcome(o);
        record(report, first + k, c, sdk);
      });
    }
  } finally {
    await runner.close();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

function toXmlOutcome(o: { treeAccepted: boolean; skipAccepted: boolean; text: string }): XmlSdkOutcome {
  return { readerAccepted: o.treeAccepted, treeAccepted: o.skipAccepted, text: o.text };
}

function record(
  report: XmlFuzzReport,
  index: number,
  c: { doc: Uint8Array; mutated: boolean },
  sdk: XmlSdkOutcome | Error,
) {
  if (c.mutated) report.mutated++;
  const finding = (problem: string) => {
    if (report.findings.length < MAX_FINDINGS) {
      report.findings.push({ index, document: Buffer.from(c.doc).toString('base64'), problem });
    }
  };
  if (sdk instanceof Error) {
    report.traps++;
    finding(`trap: ${sdk.message}`);
    return;
  }
  const verdict = judgeXml(c.doc, sdk);
  if (verdict.kind === 'divergence') {
    report.divergences++;
    finding(verdict.problem);
  } else if (verdict.kind === 'allowed') {
    report.allowedDivergences++;
    report.allowedByRule[verdict.rule] = (report.allowedByRule[verdict.rule] ?? 0) + 1;
  } else if (sdk.readerAccepted) report.valid++;
}
