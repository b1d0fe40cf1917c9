// Strict readers for the conformance fixture's fields: each names the field's path in its error, so a typo or a wrong
// type never silently turns a check off.

export class FixtureError extends Error {
  override name = 'FixtureError';
}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function fail(path: string, message: string): never {
  throw new FixtureError(`fixture ${path}: ${message}`);
}

export function only(obj: Json, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(`${path}.${key}`, `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

export function str(obj: Json, key: string, path: string, fallback?: string): string {
  const v = obj[key];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'string' || v === '') fail(`${path}.${key}`, 'must be a non-empty string');
  return v;
}

export function stringMap(obj: Json, key: string, path: string): Record<string, string> {
  const v = obj[key];
  if (v === undefined) return {};
  if (!isObject(v)) fail(`${path}.${key}`, 'must be a map of strings');
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== 'string') fail(`${path}.${key}.${k}`, 'must be a string');
  }
  return v as Record<string, string>;
}

export function list(obj: Json, key: string, path: string): unknown[] {
  const v = obj[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(`${path}.${key}`, 'must be a list');
  return v;
}
