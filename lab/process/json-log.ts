// A log of one JSON record a line (klog's JSON shape, as wasm-ccm writes it with --logging-format=json).
import { readFileSync } from 'node:fs';

/** The JSON records of a log file (other lines skipped); none while the file does not exist yet. */
export function readJsonLines(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const records: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut mid-write
    }
  }
  return records;
}
