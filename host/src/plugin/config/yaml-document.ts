// The plugin configuration's YAML, parsed under limits. A YAML alias (`*name`) shares one parsed node among all the
// places that name it: ten levels of ten aliases each (a "billion laughs") parse in microseconds into a document of
// 10^9 nodes once it is written out (an inline `cloudConfig` mapping is written out as JSON), and an alias inside
// its own anchor makes a cycle that cannot be written out at all. js-yaml bounds the nesting (maxDepth, 100) and can
// count aliases (maxAliases) but not what they expand to; so the parsed document is walked as it expands, and
// refused at a cycle or once it grows past MAX_EXPANDED_SIZE, naming the field where that happened.
import { load } from 'js-yaml';
import { errorMessage } from '../../util/error-message.ts';
import { PluginConfigError } from './field.ts';

/** Alias nodes (`*name`) in the document: sharing a few `limits` is what they are for. */
export const MAX_ALIASES = 100;
/** Nodes, plus the JSON length of every key and scalar, with every alias expanded: twice the file cap (4 MiB). */
export const MAX_EXPANDED_SIZE = 8 * 1048576;
/** Nesting with every alias expanded (js-yaml bounds the text's own nesting to 100). */
export const MAX_EXPANDED_DEPTH = 200;

/** Parses `text` (YAML or JSON); a PluginConfigError for bad syntax, too many aliases, or an alias that expands too far. */
export function loadConfigYaml(text: string): unknown {
  let doc: unknown;
  try {
    doc = load(text, { maxAliases: MAX_ALIASES });
  } catch (err) {
    throw new PluginConfigError('', `not YAML or JSON: ${errorMessage(err).split('\n')[0]}`);
  }
  checkExpansion(doc);
  return doc;
}

interface Node {
  value: unknown;
  parent: Node | undefined;
  key: string | number;
  depth: number;
}

// Depth first with a stack of its own (an expanded document may nest deeper than the call stack allows): the nodes
// on the current path find a cycle, and the running size stops the walk at the budget, so it costs at most that.
// Field paths are built only for the error.
function checkExpansion(doc: unknown): void {
  const onPath = new Set<object>();
  const stack: (Node | { leave: object })[] = [{ value: doc, parent: undefined, key: '', depth: 0 }];
  let size = 0;
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    if ('leave' in step) {
      onPath.delete(step.leave);
      continue;
    }
    const value = step.value;
    size += 1 + scalarLength(value);
    if (size > MAX_EXPANDED_SIZE) {
      fail(step, `YAML aliases expand the document past ${MAX_EXPANDED_SIZE} nodes and characters`);
    }
    if (value === null || typeof value !== 'object') continue;
    if (onPath.has(value)) fail(step, 'a YAML alias inside the node it names (a cycle)');
    if (step.depth >= MAX_EXPANDED_DEPTH) fail(step, `YAML aliases nest it deeper than ${MAX_EXPANDED_DEPTH} levels`);
    onPath.add(value);
    stack.push({ leave: value });
    const depth = step.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: step, key: i, depth });
    } else {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        size += key.length;
        stack.push({ value: (value as Record<string, unknown>)[key], parent: step, key, depth });
      }
    }
  }
}

// What a scalar costs as the JSON it becomes (a cloud config is handed on as JSON): a long number counts as long.
function scalarLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value).length;
  if (value instanceof Date) return 26;
  return value === null ? 4 : 0;
}

function fail(node: Node, message: string): never {
  const keys: (string | number)[] = [];
  for (let n: Node | undefined = node; n?.parent !== undefined; n = n.parent) keys.unshift(n.key);
  const path = keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  throw new PluginConfigError(path, message);
}
