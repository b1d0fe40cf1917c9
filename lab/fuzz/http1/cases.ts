// Fuzz cases: a few requests sent at once on a client limited to one connection (so they queue), each answered by
// bytes from responses.ts, sometimes followed by more bytes than the answer (a second response, garbage), sometimes
// mutated, and written in pieces split at random points.
import { type BuiltAnswer, EDGE_CASES, validAnswer } from './responses.ts';
import { Rng } from './rng.ts';

export interface FuzzRequest {
  method: 'GET' | 'HEAD';
  /** Marks every byte the server sends for this request (X-Tag and the body's start). */
  tag: string;
}

export interface FuzzAnswer {
  bytes: Buffer;
  /** Offsets at which the server pauses between writes; all within the first response, never after its end. */
  splits: number[];
  close: boolean;
  kind: string;
}

export interface FuzzCase {
  id: number;
  requests: FuzzRequest[];
  answers: FuzzAnswer[];
}

const EDGE_NAMES = Object.keys(EDGE_CASES);
// Bytes a mutation writes: the ones framing hinges on, and any byte.
const INTERESTING = ['\r', '\n', ':', ' ', '\t', '\0', ';', '0', '1', '9', 'a', 'f', 'H', ',', '\x7f', '\xff', '"'];

/** Bytes after the answer's first response: a whole response (tagged as this request's), or garbage. */
function surplus(rng: Rng, tag: string): { text: string; kind: string } {
  if (rng.chance(0.6)) {
    const forged = `<${tag}> forged`;
    return {
      text: `HTTP/1.1 200 OK\r\nX-Tag: ${tag}\r\nContent-Length: ${forged.length}\r\n\r\n${forged}`,
      kind: '+response',
    };
  }
  return { text: rng.pick(['garbage', '\r\n', 'HTTP/1.1 200 OK\r\n', `<${tag}> x`]), kind: '+garbage' };
}

function mutate(rng: Rng, text: string): string {
  let out = text;
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const at = rng.int(out.length + 1);
    const byte = rng.chance(0.7) ? rng.pick(INTERESTING) : String.fromCharCode(rng.int(256));
    const op = rng.int(3);
    if (op === 0) out = out.slice(0, at) + byte + out.slice(at + 1);
    else if (op === 1) out = out.slice(0, at) + byte + out.slice(at);
    else out = out.slice(0, at) + out.slice(at + 1);
  }
  return out;
}

function answerFor(rng: Rng, request: FuzzRequest): FuzzAnswer {
  let built: BuiltAnswer;
  if (request.method === 'HEAD' || rng.chance(0.55)) built = validAnswer(rng, request.method, request.tag);
  else built = (EDGE_CASES[rng.pick(EDGE_NAMES)] as (typeof EDGE_CASES)[string])(rng, request.method, request.tag);
  let { text, kind } = built;
  if (rng.chance(0.12)) {
    const extra = surplus(rng, request.tag);
    text += extra.text;
    kind += extra.kind;
  }
  if (rng.chance(0.25)) {
    // A mutated answer goes out in one write: where its first response ends is no longer known.
    return { bytes: Buffer.from(mutate(rng, text), 'latin1'), splits: [], close: built.close, kind: `${kind}+mutated` };
  }
  const splits = new Set<number>();
  for (let n = rng.int(4); n > 0 && built.mainEnd > 1; n--) splits.add(1 + rng.int(built.mainEnd - 1));
  return {
    bytes: Buffer.from(text, 'latin1'),
    splits: [...splits].sort((a, b) => a - b),
    close: built.close,
    kind,
  };
}

/** Case `id` of the run seeded with `seed`: the same pair always gives the same case. */
export function makeCase(seed: number, id: number): FuzzCase {
  const rng = new Rng((seed ^ Math.imul(id + 1, 0x9e3779b1)) >>> 0);
  const count = rng.pick([1, 1, 2, 3, 4]);
  const requests: FuzzRequest[] = [];
  for (let k = 0; k < count; k++) {
    requests.push({ method: rng.chance(0.15) ? 'HEAD' : 'GET', tag: `T${id}r${k}q${rng.hex(8)}` });
  }
  return { id, requests, answers: requests.map((r) => answerFor(rng, r)) };
}
