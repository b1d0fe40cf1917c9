// The verdict on one case: the SDK against the platform's own JSON (TextDecoder, then JSON.parse). Both must accept
// with the same value or both refuse; what the SDK writes back must parse to that value; JsonReader.skip() must
// accept exactly what the tree parser accepts; a map read lazily (readMapBytes, then mapOfJson) must come out as
// readMap reads it, or fail with its problem. A difference the SDK makes on purpose is "allowed" when it matches an
// entry of ALLOWED_DIVERGENCES, each documented in plugin-sdk/README.md ("JSON"). A value that differs is checked
// once more against JSON.parse in a fresh process before it counts: this process's JSON.parse is not always right.
import { execFileSync } from 'node:child_process';
import { AGREE, divergence, type SdkOutcome, word } from '../differential.ts';
import { canonical } from './canonical.ts';

export type Verdict =
  { kind: 'agree' } | { kind: 'allowed'; rule: AllowedDivergence } | { kind: 'divergence'; problem: string };

export type AllowedDivergence = 'depth-limit' | 'v8-key-cache';

/** The limit JsonReader enforces (plugin-sdk/assembly/json/reader.ts, MAX_DEPTH). */
export const SDK_MAX_DEPTH = 256;

export const ALLOWED_DIVERGENCES: Record<AllowedDivergence, string> = {
  'depth-limit': `documents nested deeper than ${SDK_MAX_DEPTH} levels are refused (the reader's recursion stays far from the Wasm stack's end)`,
  'v8-key-cache':
    "the reference's, not the SDK's: after a key that is a lone backslash, V8's key cache makes JSON.parse read an escaped key of the same object shape as that backslash (nodejs/node#63785); JSON.parse in a fresh process reads the document otherwise, as the SDK does",
};

// ignoreBOM: JSON.parse itself refuses a leading U+FEFF, and so does the SDK; the decoder must not hide it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

type Reference = { ok: true; value: unknown } | { ok: false; error: string };

export function reference(doc: Uint8Array): Reference {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(doc)) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function judge(doc: Uint8Array, sdk: SdkOutcome): Verdict {
  if (!sdk.lazyMapAgrees) return divergence('readMapBytes() and mapOfJson() disagree with readMap()');
  const ref = reference(doc);
  if (sdk.skipAccepted !== sdk.treeAccepted) {
    return divergence(`skip() ${word(sdk.skipAccepted)} what the tree parser ${word(sdk.treeAccepted)}`);
  }
  if (!ref.ok) {
    return sdk.treeAccepted ? divergence(`the SDK accepted what JSON.parse refuses (${ref.error})`) : AGREE;
  }
  if (!sdk.treeAccepted) {
    if (
      nestingOf(decoder.decode(doc)) > SDK_MAX_DEPTH &&
      sdk.text.includes(`nested deeper than ${SDK_MAX_DEPTH} levels`)
    ) {
      return { kind: 'allowed', rule: 'depth-limit' };
    }
    return divergence(`the SDK refused what JSON.parse accepts: ${sdk.text}`);
  }
  let written: unknown;
  try {
    written = JSON.parse(sdk.text) as unknown;
  } catch (err) {
    return divergence(`the SDK wrote text JSON.parse refuses (${(err as Error).message}): ${sdk.text.slice(0, 200)}`);
  }
  // What JSON.stringify makes of the reference: numbers past f64's range are Infinity, which JSON writes as null.
  const expected = JSON.parse(JSON.stringify(ref.value)) as unknown;
  const difference = firstDifference(expected, written, '$');
  if (difference === undefined) return AGREE;
  // Allowed only when this process's reference was itself wrong, and a fresh process's agrees with the SDK.
  const fresh = inFreshProcess(decoder.decode(doc));
  return fresh !== canonical(ref.value) && fresh === inFreshProcess(sdk.text)
    ? { kind: 'allowed', rule: 'v8-key-cache' }
    : divergence(difference);
}

const CANONICAL_MODULE = new URL('./canonical.ts', import.meta.url).href;

/**
 * `text`'s value, canonical, as JSON.parse reads it in a process that has parsed nothing before. One process per text:
 * within one, the first could poison the key cache for the second.
 */
export function inFreshProcess(text: string): string {
  const script = `import(${JSON.stringify(CANONICAL_MODULE)}).then((m) => m.printCanonicalOfStdin());`;
  return execFileSync(process.execPath, ['-e', script], { input: text, encoding: 'utf8' });
}

/**
 * The deepest nesting of brackets in the document's text, outside strings. Not the parsed value's depth: a duplicate
 * key can replace a deep member with a shallow one, but the reader has to go through the deep one first.
 */
export function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** Where two JSON values first differ (objects as unordered key sets, numbers by ===), or undefined. */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (typeof expected !== 'object' || expected === null || typeof actual !== 'object' || actual === null) {
    return expected === actual ? undefined : `${path}: expected ${show(expected)}, the SDK gave ${show(actual)}`;
  }
  if (Array.isArray(expected) !== Array.isArray(actual)) return `${path}: an array against an object`;
  const expectedKeys = Object.keys(expected);
  const actualKeys = Object.keys(actual);
  if (expectedKeys.length !== actualKeys.length) {
    return `${path}: ${expectedKeys.length} members expected, the SDK gave ${actualKeys.length}`;
  }
  for (const key of expectedKeys) {
    if (!Object.hasOwn(actual, key)) return `${path}: member ${show(key)} missing`;
    const e = (expected as Record<string, unknown>)[key];
    const a = (actual as Record<string, unknown>)[key];
    const found = firstDifference(e, a, Array.isArray(expected) ? `${path}[${key}]` : `${path}.${show(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function show(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value)?.slice(0, 80) ?? String(value));
}
