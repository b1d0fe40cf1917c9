// The scanner behind negative-after-sleep.test.ts, whose header describes the heuristic. It reads source text only:
// comments, strings and regex literals are blanked first, so neither they nor the samples of the self-test count.

export interface Finding {
  file: string;
  /** The line of the fixed sleep. */
  line: number;
  /** The line of the negative expectation that follows it. */
  expectLine: number;
  expectation: string;
}

interface Block {
  open: number;
  close: number;
  kind: 'function' | 'loop' | 'control' | 'other';
  /** A loop's condition (the text between the parentheses of `for`/`while`), undefined for `do`. */
  header?: string;
  /** Where a loop statement starts (its keyword). */
  start: number;
}

interface Loop {
  start: number;
  body: string;
  header: string | undefined;
}

const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'void', 'yield', 'await']);
const CONTROL_WORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);

/** A promise resolved by a timer, or a sleep/delay helper (node:timers/promises' setTimeout included). */
const SLEEP = [
  /\bawait\s+new\s+Promise\s*(?:<[^>]*>)?\s*\(\s*\(?\s*(\w+)[^)]*?\)?\s*=>[^;]*?\bsetTimeout\s*\(\s*(?:\1\b|\(\s*\)\s*=>\s*\1\s*\()/g,
  /\bawait\s+(?:sleep|delay|setTimeout|scheduler\.wait)\s*\(/g,
];
/** Waits for a positive sign: a poll of a condition, or the harnesses' barriers. */
const POSITIVE_WAIT = /\b(?:eventually|waitFor\w*|settled|expect\.poll|vi\.waitFor|vi\.waitUntil)\s*\(/g;
/** A loop condition that only counts time or rounds: such a loop is a fixed wait however long it runs. */
const BLIND_HEADERS = [
  /^\s*(?:let|var)\s+\w+\s*=\s*[\w.]+\s*;\s*\w+\s*<=?\s*[\w.]+\s*;\s*(?:\w+\+\+|\+\+\w+|\w+\s*\+=\s*[\w.]+)\s*$/,
  /^\s*(?:Date|performance)\.now\(\)\s*<=?\s*[\w.]+\s*$/,
  /^\s*(?:true|;\s*;)\s*$/,
  /^\s*(?:const|let|var)\s+[\w\s,[\]{}]+\s+(?:of|in)\s+[\w.()[\]]+\s*$/,
];
const NEGATIVE = [
  /\.not\./,
  /\.(?:toHaveLength|toHaveBeenCalledTimes)\(\s*0\s*\)/,
  /\.(?:toBe|toEqual|toStrictEqual)\(\s*(?:0|false|null|undefined|''|""|\[\s*\]|\{\s*\})\s*\)/,
  /\.(?:toBeFalsy|toBeUndefined|toBeNull)\(\s*\)/,
];

/** The text with comments, the contents of strings and templates, and regex literals blanked; same length. */
export function codeOnly(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  const templates: number[] = []; // the brace depth at which each open `${` expression closes
  let depth = 0;
  let i = 0;
  const template = (from: number): number => {
    let j = from;
    while (j < text.length && text[j] !== '`' && !(text[j] === '$' && text[j + 1] === '{'))
      j += text[j] === '\\' ? 2 : 1;
    blank(from, Math.min(j, text.length));
    if (text[j] === '$') {
      templates.push(depth);
      depth++;
      return j + 2;
    }
    return j + 1;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const line = text[i + 1] === '/';
      const close = line ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      const stop = close < 0 ? text.length : line ? close : close + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else if (c === '`') {
      i = template(i + 1);
    } else if (c === '/' && regexMayStart(out, i) && regexEnd(text, i) > 0) {
      const end = regexEnd(text, i);
      blank(i + 1, end);
      i = end + 1;
    } else {
      if (c === '{') depth++;
      if (c === '}') {
        depth--;
        if (templates.at(-1) === depth) {
          templates.pop();
          i = template(i + 1);
          continue;
        }
      }
      i++;
    }
  }
  return out.join('');
}

function regexMayStart(code: string[], at: number): boolean {
  let k = at - 1;
  while (k >= 0 && /\s/.test(code[k] ?? '')) k--;
  if (k < 0) return true;
  const p = code[k] ?? '';
  if ('(,=:[!&|?{};+-*%<>~^'.includes(p)) return true;
  if (!/\w/.test(p)) return false;
  let s = k;
  while (s > 0 && /\w/.test(code[s - 1] ?? '')) s--;
  return REGEX_AFTER_WORD.has(code.slice(s, k + 1).join(''));
}

/** The index of the closing slash of the regex literal opening at `at` (its flags stay code); -1 if none. */
function regexEnd(text: string, at: number): number {
  let inClass = false;
  for (let j = at + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return -1;
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return j;
  }
  return -1;
}

/** The index of the bracket matching the one at `at`, searching forward for an opener, backward for a closer. */
function matching(code: string, at: number): number {
  const pairs: Record<string, [string, string, number]> = {
    '(': ['(', ')', 1],
    '{': ['{', '}', 1],
    ')': [')', '(', -1],
    '}': ['}', '{', -1],
  };
  const [same, other, step] = pairs[code[at] ?? ''] ?? ['', '', 1];
  let level = 0;
  for (let j = at; j >= 0 && j < code.length; j += step) {
    if (code[j] === same) level++;
    else if (code[j] === other && --level === 0) return j;
  }
  return step > 0 ? code.length : -1;
}

function wordBefore(code: string, at: number): { word: string; start: number } {
  let k = at - 1;
  while (k >= 0 && /\s/.test(code[k] ?? '')) k--;
  let s = k;
  while (s >= 0 && /\w/.test(code[s] ?? '')) s--;
  return { word: code.slice(s + 1, k + 1), start: s + 1 };
}

/** What the `{` at `open` opens, judged by the code just before it. */
function classify(code: string, open: number): Omit<Block, 'close'> {
  const before = code.slice(Math.max(0, open - 400), open);
  if (/=>\s*$/.test(before)) return { open, kind: 'function', start: open };
  // `) {`, or `): ReturnType {` on a function with a type annotation
  const typed = /\)\s*(?::\s*[^;=]*)?$/.exec(before);
  if (typed) {
    const paren = open - before.length + typed.index;
    const opener = matching(code, paren);
    const { word, start } = wordBefore(code, opener);
    if (word === 'for' || word === 'while') {
      return { open, kind: 'loop', header: code.slice(opener + 1, paren), start };
    }
    return { open, kind: CONTROL_WORDS.has(word) ? 'control' : 'function', start };
  }
  const { word, start } = wordBefore(code, open);
  if (word === 'do') return { open, kind: 'loop', start };
  return { open, kind: ['else', 'try', 'finally'].includes(word) ? 'control' : 'other', start };
}

function blocks(code: string): Block[] {
  const found: Block[] = [];
  for (let i = 0; i < code.length; i++) {
    if (code[i] === '{') found.push({ ...classify(code, i), close: matching(code, i) });
  }
  return found;
}

function isPoll(loop: Loop): boolean {
  if (/\b(?:break|return)\b/.test(loop.body)) return true;
  if (loop.header === undefined) return true;
  return !BLIND_HEADERS.some((blind) => blind.test(loop.header ?? ''));
}

/** The loop the sleep at `at` repeats in, if any, up to the function it is in. */
function loopOf(code: string, at: number, enclosing: Block[]): Loop | undefined {
  // A loop without braces: `while (cond) await sleep(...)`.
  const { word } = wordBefore(code, at);
  let k = at - 1;
  while (k >= 0 && /\s/.test(code[k] ?? '')) k--;
  if (word === '' && code[k] === ')') {
    const opener = matching(code, k);
    const keyword = wordBefore(code, opener);
    if (keyword.word === 'for' || keyword.word === 'while') {
      const end = code.indexOf(';', at);
      const body = code.slice(k + 1, end < 0 ? code.length : end);
      return { start: keyword.start, body, header: code.slice(opener + 1, k) };
    }
  }
  for (const block of enclosing) {
    if (block.kind === 'function') return undefined;
    if (block.kind === 'loop') {
      return { start: block.start, body: code.slice(block.open, block.close), header: block.header };
    }
  }
  return undefined;
}

function lineAt(code: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (code[i] === '\n') line++;
  return line;
}

/** `expect(...)` with its whole chain of matchers: `.not.toContain(...)`, `.resolves.toBe(...)`. */
function expectationAt(code: string, at: number): string {
  let end = matching(code, code.indexOf('(', at)) + 1;
  for (;;) {
    const link = /^\s*\.\s*\w+/.exec(code.slice(end));
    if (!link) break;
    end += link[0].length;
    if (/^\s*\(/.test(code.slice(end))) end = matching(code, code.indexOf('(', end)) + 1;
  }
  return code.slice(at, end);
}

/** The first negative expectation in code[from, to) before any positive wait, if there is one. */
function negativeBeforeWait(code: string, from: number, to: number): { at: number; text: string } | undefined {
  const window = code.slice(from, to);
  POSITIVE_WAIT.lastIndex = 0;
  const wait = POSITIVE_WAIT.exec(window);
  const limit = from + (wait ? wait.index : window.length);
  const expectations = /\bexpect\s*\(/g;
  expectations.lastIndex = from;
  for (let m = expectations.exec(code); m && m.index < limit; m = expectations.exec(code)) {
    const text = expectationAt(code, m.index);
    if (NEGATIVE.some((negative) => negative.test(text))) return { at: m.index, text };
  }
  return undefined;
}

function sleepsIn(code: string): number[] {
  const at = new Set<number>();
  for (const pattern of SLEEP) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(code); m; m = pattern.exec(code)) at.add(m.index);
  }
  return [...at].sort((a, b) => a - b);
}

/** Every fixed sleep of `text` followed, in the same function, by a negative expectation before a positive wait. */
export function findNegativesAfterSleeps(file: string, text: string): Finding[] {
  const code = codeOnly(text);
  const all = blocks(code);
  const findings: Finding[] = [];
  for (const sleep of sleepsIn(code)) {
    const enclosing = all.filter((b) => b.open < sleep && sleep < b.close).sort((a, b) => b.open - a.open);
    const loop = loopOf(code, sleep, enclosing);
    if (loop && isPoll(loop)) continue;
    const end = enclosing.find((b) => b.kind === 'function')?.close ?? code.length;
    // In a loop that only counts time or rounds, what the body checks first follows the previous round's sleep.
    const hit = negativeBeforeWait(code, loop ? loop.start : sleep, end);
    if (hit) {
      const expectation = text.slice(hit.at, hit.at + hit.text.length).replace(/\s+/g, ' ');
      findings.push({ file, line: lineAt(code, sleep), expectLine: lineAt(code, hit.at), expectation });
    }
  }
  return findings;
}
