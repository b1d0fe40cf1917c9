// Where a process's resident memory is, from /proc/<pid>/smaps (Linux): file-backed versus anonymous, and the
// anonymous memory by the kind of reservation it lives in. Adjacent anonymous mappings are split into:
//   brk heap:      [heap], glibc's main malloc arena (the main thread's malloc);
//   malloc arena:  a 64 MiB, 64 MiB-aligned reservation: a secondary glibc arena (a thread's first malloc makes one, up
//                  to 8 per core; an exited thread's arena is kept for the next thread; never unmapped, and only
//                  trimmed from its top);
//   thread stack:  a 4 KiB guard page and the stack after it;
//   wasm memory:   the rest of a run of 4 GiB or more: WebAssembly linear memories with their guard regions (V8
//                  reserves 8 GiB and more each);
//   other anon:    the rest: V8 heap pages and code space, Node's own mmaps, malloc chunks above the mmap threshold.
import { readFileSync } from 'node:fs';

export type RegionKind = 'file' | 'brk heap' | 'malloc arena' | 'wasm memory' | 'thread stack' | 'other anon';

export interface Region {
  kind: RegionKind;
  start: bigint;
  sizeKb: number;
  rssKb: number;
  /** The file of a file-backed mapping, else the kernel's name ([stack], [vvar]) or ''. */
  name: string;
}

export interface SmapsBreakdown {
  /** kind -> resident kB, count of regions. */
  byKind: Map<RegionKind, { rssKb: number; count: number }>;
  regions: Region[];
  rssKb: number;
}

const GIB = 1024 * 1024; // in kB
const ARENA_KB = 64 * 1024;

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKb: number;
}

function parse(text: string): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      current = {
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3] ?? '',
        name: head[4] ?? '',
        rssKb: 0,
      };
      out.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rssKb = Number(rss[1]);
  }
  return out;
}

const ARENA_BYTES = BigInt(ARENA_KB * 1024);
const kbOf = (bytes: bigint): number => Number(bytes / 1024n);

/**
 * Splits a run of adjacent anonymous mappings into regions: glibc arenas (a mapping starting on a 64 MiB boundary
 * whose mappings end exactly 64 MiB later), thread stacks (a 4 KiB PROT_NONE guard, then the stack), and what lies
 * between, merged (a Wasm memory when it spans 4 GiB or more).
 */
function splitRun(run: Mapping[], out: Region[]): void {
  let rest: Mapping[] = [];
  const flush = (): void => {
    if (rest.length === 0) return;
    const first = rest[0] as Mapping;
    const sizeKb = kbOf((rest.at(-1) as Mapping).end - first.start);
    const rssKb = rest.reduce((sum, m) => sum + m.rssKb, 0);
    out.push({ kind: sizeKb >= 4 * GIB ? 'wasm memory' : 'other anon', start: first.start, sizeKb, rssKb, name: '' });
    rest = [];
  };
  for (let i = 0; i < run.length;) {
    const m = run[i] as Mapping;
    if (m.start % ARENA_BYTES === 0n) {
      let j = i;
      let rssKb = 0;
      while (j < run.length && (run[j] as Mapping).end <= m.start + ARENA_BYTES) rssKb += (run[j++] as Mapping).rssKb;
      if (j > i && (run[j - 1] as Mapping).end === m.start + ARENA_BYTES) {
        flush();
        out.push({ kind: 'malloc arena', start: m.start, sizeKb: ARENA_KB, rssKb, name: '' });
        i = j;
        continue;
      }
    }
    const next = run[i + 1];
    if (m.perms.startsWith('---') && m.end - m.start === 4096n && next?.perms.startsWith('rw')) {
      flush();
      out.push({ kind: 'thread stack', start: m.start, sizeKb: kbOf(next.end - m.start), rssKb: next.rssKb, name: '' });
      i += 2;
      continue;
    }
    rest.push(m);
    i++;
  }
  flush();
}

function classifyNamed(name: string): RegionKind {
  if (name === '[heap]') return 'brk heap';
  if (name === '[stack]') return 'thread stack';
  return name.startsWith('[') ? 'other anon' : 'file';
}

export function smapsBreakdown(pid: number): SmapsBreakdown {
  const mappings = parse(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  const regions: Region[] = [];
  let run: Mapping[] = [];
  for (const m of mappings) {
    if (m.name === '') {
      if (run.length > 0 && (run.at(-1) as Mapping).end !== m.start) {
        splitRun(run, regions);
        run = [];
      }
      run.push(m);
      continue;
    }
    splitRun(run, regions);
    run = [];
    regions.push({
      kind: classifyNamed(m.name),
      start: m.start,
      sizeKb: kbOf(m.end - m.start),
      rssKb: m.rssKb,
      name: m.name,
    });
  }
  splitRun(run, regions);
  const byKind = new Map<RegionKind, { rssKb: number; count: number }>();
  let rssKb = 0;
  for (const r of regions) {
    const k = byKind.get(r.kind) ?? { rssKb: 0, count: 0 };
    k.rssKb += r.rssKb;
    k.count++;
    byKind.set(r.kind, k);
    rssKb += r.rssKb;
  }
  return { byKind, regions, rssKb };
}

/** One line: "total 275.1 MB: file 40.2, brk heap 12.0, malloc arena 80.1 (14), ..." in MB. */
export function formatBreakdown(b: SmapsBreakdown): string {
  const mb = (kb: number): string => (kb / 1024).toFixed(1);
  const parts = [...b.byKind]
    .sort((x, y) => y[1].rssKb - x[1].rssKb)
    .map(([kind, v]) => `${kind} ${mb(v.rssKb)} (${v.count})`);
  return `total ${mb(b.rssKb)} MB: ${parts.join(', ')}`;
}

/** The `n` anonymous regions with the most resident memory, one per line. */
export function formatTopRegions(b: SmapsBreakdown, n: number): string {
  return b.regions
    .filter((r) => r.kind !== 'file')
    .sort((x, y) => y.rssKb - x.rssKb)
    .slice(0, n)
    .map(
      (r) =>
        `    ${r.kind.padEnd(12)} ${`0x${r.start.toString(16)}`.padEnd(16)} size ${r.sizeKb} kB, rss ${r.rssKb} kB ${r.name}`,
    )
    .join('\n');
}
