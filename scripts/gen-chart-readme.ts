// The tables of charts/wasm-ccm/README.md ("Values", "Provider fields"), generated from values.schema.json (types,
// descriptions) and values.yaml (defaults), so the README cannot drift from either: `node scripts/gen-chart-readme.ts`
// rewrites it, and test/unit/chart/readme.test.ts checks the README holds exactly this text.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

const CHART_DIR = join(import.meta.dirname, '..', 'charts', 'wasm-ccm');

export function chartValues(): Record<string, unknown> {
  return load(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, unknown>;
}

export interface SchemaNode {
  type?: string | string[];
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  definitions?: Record<string, SchemaNode>;
}

export const README_PATH = join(CHART_DIR, 'README.md');
const START = '<!-- generated from values.schema.json and values.yaml: node scripts/gen-chart-readme.ts -->';
const END = '<!-- end of generated tables -->';
/** Keys the schema allows for Helm's sake that values.yaml does not set. */
export const HELM_ONLY_KEYS = new Set(['global']);

export function chartSchema(): SchemaNode {
  return JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as SchemaNode;
}

function resolve(node: SchemaNode, root: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const target = root.definitions?.[name];
  if (!target) throw new Error(`values.schema.json: unresolved $ref ${node.$ref}`);
  return { ...resolve(target, root), ...node, $ref: undefined };
}

function typeOf(node: SchemaNode): string {
  if (node.type !== undefined) return Array.isArray(node.type) ? node.type.join(' or ') : node.type;
  if (node.enum) return node.enum.map((e) => JSON.stringify(e)).join(' or ');
  return node.const !== undefined ? JSON.stringify(node.const) : 'any';
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export interface ValueRow {
  path: string;
  type: string;
  default: unknown;
  description: string;
}

/** One row per value the schema describes: objects with properties are walked, everything else is a leaf. */
export function valueRows(schema = chartSchema(), values: unknown = chartValues(), prefix = ''): ValueRow[] {
  const rows: ValueRow[] = [];
  for (const [key, raw] of Object.entries(schema.properties ?? {})) {
    if (prefix === '' && HELM_ONLY_KEYS.has(key)) continue;
    const node = resolve(raw, chartSchema());
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const value = (values as Record<string, unknown> | undefined)?.[key];
    if (node.properties && node.type === 'object' && raw.$ref === undefined) {
      rows.push(...valueRows(node, value, path));
    } else {
      rows.push({ path, type: typeOf(node), default: value, description: node.description ?? '' });
    }
  }
  return rows;
}

function valuesTable(): string {
  const lines = ['| value | type | default | description |', '|---|---|---|---|'];
  for (const row of valueRows()) {
    const shown = row.default === undefined ? '' : `\`${cell(JSON.stringify(row.default))}\``;
    lines.push(`| \`${row.path}\` | ${cell(row.type)} | ${shown} | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}

function providerTable(): string {
  const schema = chartSchema();
  const provider = schema.definitions?.provider;
  const lines = ['| field | type | description |', '|---|---|---|'];
  for (const [key, raw] of Object.entries(provider?.properties ?? {})) {
    const node = resolve(raw, schema);
    lines.push(`| \`${key}\` | ${cell(typeOf(node))} | ${cell(node.description ?? '')} |`);
  }
  return lines.join('\n');
}

export function generatedSection(): string {
  return [
    START,
    '',
    '### Values',
    '',
    valuesTable(),
    '',
    '### Provider fields (`plugins.providers[]`)',
    '',
    providerTable(),
    '',
    END,
  ].join('\n');
}

/** The README with its generated section replaced by the current one. */
export function regeneratedReadme(readme = readFileSync(README_PATH, 'utf8')): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${README_PATH}: the generated-section markers are missing`);
  return readme.slice(0, start) + generatedSection() + readme.slice(end + END.length);
}

if (import.meta.main) {
  writeFileSync(README_PATH, regeneratedReadme());
  console.log(`wrote ${README_PATH}`);
}
