// Writes the two reference tables of docs/troubleshooting.md, each between its `<!-- generated:... -->` markers, from
// the code, so neither can drift: the Event reasons from the one definition the CCM records them from
// (host/src/kube/events/reasons.ts), and every error and warning record the CCM logs, read from host/src (the first
// argument of each logger's error() and warn()), each linked to the page's section on its area. The hand-written
// sections say what to do. test/unit/kube/troubleshooting-doc.test.ts fails when a table is stale, or a reason or an
// area has no section.
//   node scripts/gen-troubleshooting-doc.ts
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_REASONS, type EventReasonSpec } from '../host/src/kube/events/reasons.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOST_SRC = join(ROOT, 'host', 'src');
export const TROUBLESHOOTING_DOC = join(ROOT, 'docs', 'troubleshooting.md');

/** The sections of the page the log records of a host/src folder belong to (the longest matching prefix wins). */
export const LOG_AREAS: Readonly<Record<string, string>> = {
  'main.ts': 'Start-up and shutdown',
  'app/': 'Start-up and shutdown',
  'kube/leaderelection/': 'Leader election',
  'kube/events/': 'Events',
  'kube/informer/': 'The apiserver connection',
  'controllers/framework/': 'Controllers',
  'controllers/node/': 'Nodes',
  'controllers/nodelifecycle/': 'Nodes',
  'controllers/service/': 'Load balancers',
  'controllers/route/': 'Routes',
  'plugin/broker/': 'Cloud requests and credentials',
  'plugin/runtime/': 'Plugin calls and instances',
  'plugin/sandbox/': 'Plugin calls and instances',
  'plugin/swap/': 'Plugin modules and hot swap',
};
// The `wasm-ccm plugin test` tool reports to its own user, not to an operator of the CCM.
const NOT_THE_CCM = ['cli/', 'conformance/'];

export interface LogRecord {
  level: 'error' | 'warning';
  message: string;
  /** host/src-relative path. */
  file: string;
  area: string | undefined;
}

/** The GitHub anchor of a heading. */
export const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replaceAll(' ', '-');

export function areaOf(file: string): string | undefined {
  const prefix = Object.keys(LOG_AREAS)
    .filter((p) => file.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : LOG_AREAS[prefix];
}

// A logger's error() or warn() with a literal message: `this.log.warn('...'`, `logger.error(\`${what} failed\``.
const LOG_CALL = /\b(?:log|logger|tagged)\.(error|warn)\(\s*(['`])((?:(?!\2)[^\\]|\\.)*)\2/g;

export function logRecords(): LogRecord[] {
  const files = readdirSync(HOST_SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !NOT_THE_CCM.some((p) => f.startsWith(p)))
    .sort();
  const seen = new Set<string>();
  const records: LogRecord[] = [];
  for (const file of files) {
    for (const [, level, , text] of readFileSync(join(HOST_SRC, file), 'utf8').matchAll(LOG_CALL)) {
      const message = (text as string).replace(/\$\{[^}]*\}/g, '…');
      const key = `${level}\u0000${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push({ level: level === 'warn' ? 'warning' : 'error', message, file, area: areaOf(file) });
    }
  }
  return records;
}

const marker = (name: string): { begin: string; end: string } => ({
  begin: `<!-- generated:${name} (node scripts/gen-troubleshooting-doc.ts; do not edit by hand) -->`,
  end: `<!-- /generated:${name} -->`,
});

export function eventsTable(): string[] {
  return [
    '| reason | type | object | source component | recorded when |',
    '|---|---|---|---|---|',
    ...Object.entries(EVENT_REASONS as Record<string, EventReasonSpec>).map(
      ([reason, spec]) =>
        `| [\`${reason}\`](#${anchor(reason)}) | ${spec.type} | ${spec.object} | \`${spec.component}\` | ${spec.when} |`,
    ),
  ];
}

export function logTable(records: readonly LogRecord[]): string[] {
  const byArea = [...records].sort(
    (a, b) => (a.area ?? '').localeCompare(b.area ?? '') || a.message.localeCompare(b.message),
  );
  return [
    '| message | level | what to read | logged by |',
    '|---|---|---|---|',
    ...byArea.map(
      (r) =>
        `| \`${r.message.replaceAll('|', '\\|')}\` | ${r.level} | [${r.area ?? '?'}](#${anchor(r.area ?? '')}) | \`host/src/${r.file}\` |`,
    ),
  ];
}

function splice(text: string, name: string, body: string[]): string {
  const { begin, end } = marker(name);
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`${TROUBLESHOOTING_DOC}: the markers ${begin} ... ${end} are missing`);
  return text.slice(0, start) + [begin, ...body, end].join('\n') + text.slice(stop + end.length);
}

/** `text` (the page) with both generated tables written from the code. */
export function withGeneratedTables(text: string): string {
  return splice(splice(text, 'events', eventsTable()), 'log-records', logTable(logRecords()));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(TROUBLESHOOTING_DOC, withGeneratedTables(readFileSync(TROUBLESHOOTING_DOC, 'utf8')));
}
