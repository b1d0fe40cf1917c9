// The XML fuzzer's time dimension: adversarial documents (adversarial.ts) at sizes growing 4x a step, each read by
// the SDK's XmlReader, readElementText and XmlElement (time_probe in plugin-sdk/tests/assembly/xml.ts, built -O3 as
// plugins are). Linear reading takes about 4x the time at 4x the size; a step that takes more than `maxRatio` times
// the step before (or the floor, below which a machine's noise is larger than the signal) is a finding.
import { load, type TestPlugin } from '../../plugins/index.ts';
import { Random } from '../json/index.ts';
import { ADVERSARIAL_SHAPES, type AdversarialShape } from './adversarial.ts';
import { compileXmlFuzzModule } from './run.ts';

const encoder = new TextEncoder();

/** What time_probe read (time_tree answers `tree` only). */
export interface ProbeResult {
  events?: number;
  accepted?: boolean;
  /** The length of the root's readElementText(), -1 when the document had no root. */
  elementText?: number;
  tree: boolean;
}

/**
 * time_probe reads a document every way a provider can (XmlReader to its end, readElementText, XmlElement);
 * time_tree only as the AWS provider reads an answer (XmlElement.parseBytes).
 */
export type ProbeExport = 'time_probe' | 'time_tree';

export interface Timing {
  /** CPU time of the thread that runs the module: what the reading costs, whatever else the machine runs. */
  cpuMs: number;
  /** Wall-clock time, which a shared machine's other work inflates. */
  wallMs: number;
  result: ProbeResult;
}

function threadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** One module instance that times documents through time_probe (foreground: the module runs on this thread). */
export class XmlTimer {
  readonly #plugin: TestPlugin;

  private constructor(plugin: TestPlugin) {
    this.#plugin = plugin;
  }

  /** A fresh instance, warmed up: V8 compiles a module lazily and tiers up its hot functions. */
  static async create(wasm?: Uint8Array): Promise<XmlTimer> {
    const timer = new XmlTimer(await load(wasm ?? (await compileXmlFuzzModule())));
    await timer.time(ADVERSARIAL_SHAPES.children(new Random(0), 20_000), 2);
    return timer;
  }

  /**
   * The fastest of `repeats` readings of the document, in milliseconds, and what the module read. The fastest, because
   * a shared machine only ever adds time.
   */
  async time(doc: string, repeats = 3, probe: ProbeExport = 'time_probe'): Promise<Timing> {
    const bytes = encoder.encode(doc);
    let cpuMs = Infinity;
    let wallMs = Infinity;
    let out = '';
    for (let i = 0; i < repeats; i++) {
      const wallStarted = performance.now();
      const cpuStarted = threadCpuMs();
      out = await this.#plugin.call(probe, bytes);
      cpuMs = Math.min(cpuMs, threadCpuMs() - cpuStarted);
      wallMs = Math.min(wallMs, performance.now() - wallStarted);
    }
    return { cpuMs, wallMs, result: JSON.parse(out) as ProbeResult };
  }

  close(): Promise<void> {
    return this.#plugin.plugin.close();
  }
}

export interface TimingOptions {
  /** Random spellings per shape; the sizes of one seed share a spelling. */
  seeds: number;
  seed: number;
  /** Size of the first document of each series, in bytes. */
  firstBytes: number;
  /** Documents per series, each 4x the one before. */
  steps: number;
  /** Times under this many milliseconds count as this many in a ratio. */
  floorMs: number;
  /** The most a step may take, as a multiple of the step before (4 is linear). */
  maxRatio: number;
  shapes?: readonly AdversarialShape[];
  /** The test module to time (default: plugin-sdk/tests/assembly/xml.ts built now), e.g. one built from older code. */
  wasm?: Uint8Array;
}

export interface TimingSeries {
  shape: AdversarialShape;
  seed: number;
  bytes: number[];
  /** CPU milliseconds, the fastest of 3 readings. */
  ms: number[];
}

export interface TimingReport {
  series: TimingSeries[];
  /** Steps that grew faster than maxRatio allows, and documents the reader did not read to their end. */
  findings: string[];
  /** The largest ratio seen between consecutive steps (times floored), per shape. */
  worstRatio: Partial<Record<AdversarialShape, number>>;
  durationMs: number;
}

/** What the committed results file keeps: per shape, the worst step ratio and the slowest reading at the largest size. */
export interface TimingSummary {
  worstRatio: TimingReport['worstRatio'];
  /** Per shape, the last step any of its series reached (`steps`), and the slowest reading there. */
  largest: Partial<Record<AdversarialShape, { steps: number; bytes: number; ms: number }>>;
  findings: string[];
  durationMs: number;
}

export function timingSummary(report: TimingReport): TimingSummary {
  const largest: TimingSummary['largest'] = {};
  for (const s of report.series) {
    const bytes = s.bytes.at(-1);
    const ms = s.ms.at(-1);
    if (bytes === undefined || ms === undefined) continue;
    const steps = s.ms.length;
    const seen = largest[s.shape];
    if (seen === undefined || steps > seen.steps || (steps === seen.steps && ms > seen.ms)) {
      largest[s.shape] = { steps, bytes, ms };
    }
  }
  return { worstRatio: report.worstRatio, largest, findings: report.findings, durationMs: report.durationMs };
}

/** The construct count that gives a document of about `bytes` bytes in this spelling. */
function countFor(shape: AdversarialShape, seed: number, bytes: number): number {
  const probe = 1024;
  const perUnit = encoder.encode(ADVERSARIAL_SHAPES[shape](new Random(seed), probe)).byteLength / probe;
  return Math.max(1, Math.round(bytes / perUnit));
}

export async function runXmlTimeFuzz(options: TimingOptions): Promise<TimingReport> {
  const started = performance.now();
  const report: TimingReport = { series: [], findings: [], worstRatio: {}, durationMs: 0 };
  const shapes = options.shapes ?? (Object.keys(ADVERSARIAL_SHAPES) as AdversarialShape[]);
  for (const shape of shapes) {
    for (let s = 0; s < options.seeds; s++) {
      // An instance per series: AssemblyScript's incremental GC is paced by the number of allocations, so the garbage
      // of a few large ones (megabyte strings) outlives its call, and an instance reused for every series outgrows
      // the 2 GiB that host functions can address.
      const timer = await XmlTimer.create(options.wasm);
      try {
        report.series.push(await timeSeries(timer, shape, options.seed + s, options, report));
      } finally {
        await timer.close();
      }
    }
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** Readings of each size when a step looks too slow: the fastest of them is the reader's own time. */
const RECHECK_READINGS = 7;

async function timeSeries(
  timer: XmlTimer,
  shape: AdversarialShape,
  seed: number,
  options: TimingOptions,
  report: TimingReport,
): Promise<TimingSeries> {
  const series: TimingSeries = { shape, seed, bytes: [], ms: [] };
  let previous = '';
  for (let step = 0; step < options.steps; step++) {
    const doc = ADVERSARIAL_SHAPES[shape](new Random(seed), countFor(shape, seed, options.firstBytes * 4 ** step));
    const timing = await timer.time(doc);
    const { result } = timing;
    let ms = timing.cpuMs;
    series.bytes.push(encoder.encode(doc).byteLength);
    series.ms.push(Math.round(ms * 10) / 10);
    const label = `${shape} (seed ${seed}, ${series.bytes.at(-1)} bytes)`;
    if (!result.accepted || !result.tree) {
      report.findings.push(`${label}: not read to its end (${JSON.stringify(result)})`);
      break;
    }
    if (step === 0) {
      previous = doc;
      continue;
    }
    let ratio = Math.max(ms, options.floorMs) / Math.max(series.ms[step - 1]!, options.floorMs);
    if (ratio > options.maxRatio) {
      // A second look, both sizes again with more readings, before a finding: a collection or another process on
      // the cores slows one reading now and then, a reader that grows faster than its input does so every time.
      const before = (await timer.time(previous, RECHECK_READINGS)).cpuMs;
      ms = Math.min(ms, (await timer.time(doc, RECHECK_READINGS)).cpuMs);
      series.ms[step - 1] = Math.round(Math.min(series.ms[step - 1]!, before) * 10) / 10;
      series.ms[step] = Math.round(ms * 10) / 10;
      ratio = Math.max(ms, options.floorMs) / Math.max(series.ms[step - 1]!, options.floorMs);
    }
    previous = doc;
    report.worstRatio[shape] = Math.max(report.worstRatio[shape] ?? 0, Math.round(ratio * 100) / 100);
    if (ratio > options.maxRatio) {
      report.findings.push(`${label}: ${ms.toFixed(1)} ms, ${ratio.toFixed(1)}x the step before (4x the size)`);
      break; // a growth this fast makes the next, larger step take far longer
    }
  }
  return series;
}
