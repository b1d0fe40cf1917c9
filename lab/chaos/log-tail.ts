// Reads a replica's klog JSON log as it grows, each record once: a long run's logs are too large to re-read whole on
// every check, as CCMProcess.logs() does.
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import type { LogRecord } from '../ccm/index.ts';

export class LogTail {
  #offset = 0;
  #partial = '';

  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** The records written since the last call. */
  read(): LogRecord[] {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= this.#offset) return [];
      const buffer = Buffer.alloc(size - this.#offset);
      const got = readSync(fd, buffer, 0, buffer.length, this.#offset);
      this.#offset += got;
      const text = this.#partial + buffer.subarray(0, got).toString('utf8');
      const lines = text.split('\n');
      this.#partial = lines.pop() ?? '';
      return lines.flatMap(parseRecord);
    } finally {
      closeSync(fd);
    }
  }
}

function parseRecord(line: string): LogRecord[] {
  if (!line.startsWith('{')) return [];
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    // klog's JSON: an error record has no `v`.
    const level = typeof record.v !== 'number' ? 'error' : record.v >= 2 ? 'debug' : 'info';
    return [{ ...record, level }];
  } catch {
    return [];
  }
}
