// `--instances FILE`: the instances devcloud holds from the start, as a JSON document
// {"instances": [{"id"?, "name", "type"?, "zone"?, "labels"?, "state"?: "running" | "stopped"}]} — what a
// provider project's conformance fixture names, so the kit's first run finds them.
import { readFile } from 'node:fs/promises';
import type { InstanceSpec } from './model/instances.ts';

const FIELDS = new Set(['id', 'name', 'type', 'zone', 'labels', 'state']);

export class InstancesFileError extends Error {
  override name = 'InstancesFileError';
}

/** The instance specs of an --instances document; throws InstancesFileError naming the first problem. */
export function parseInstancesFile(text: string, path: string): InstanceSpec[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InstancesFileError(`--instances: ${path} is not JSON: ${(err as Error).message}`);
  }
  const list = (doc as { instances?: unknown } | null)?.instances;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(list)) {
    throw new InstancesFileError(`--instances: ${path} must be {"instances": [...]}`);
  }
  return list.map((item: unknown, i) => {
    const where = `--instances: ${path}: instances[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new InstancesFileError(`${where} is not an object`);
    }
    const unknown = Object.keys(item).find((k) => !FIELDS.has(k));
    if (unknown !== undefined) throw new InstancesFileError(`${where}.${unknown}: unknown field`);
    const spec = item as Record<string, unknown>;
    if (typeof spec.name !== 'string') throw new InstancesFileError(`${where}.name: required, a string`);
    if (spec.state !== undefined && spec.state !== 'running' && spec.state !== 'stopped') {
      throw new InstancesFileError(`${where}.state: "running" or "stopped"`);
    }
    return spec as unknown as InstanceSpec;
  });
}

export async function readInstancesFile(path: string): Promise<InstanceSpec[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new InstancesFileError(`--instances: cannot read ${path}: ${(err as Error).message}`);
  }
  return parseInstancesFile(text, path);
}
