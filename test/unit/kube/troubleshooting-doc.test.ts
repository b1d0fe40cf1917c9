// docs/troubleshooting.md holds the tables scripts/gen-troubleshooting-doc.ts writes from the code (the Event reasons
// of host/src/kube/events/reasons.ts, the error and warning records of host/src), a section of advice for each reason
// and each area, and every Event the CCM records goes through the reasons' catalog.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_REASONS } from '../../../host/src/kube/events/reasons.ts';
import {
  anchor,
  LOG_AREAS,
  logRecords,
  TROUBLESHOOTING_DOC,
  withGeneratedTables,
} from '../../../scripts/gen-troubleshooting-doc.ts';

const HOST_SRC = join(import.meta.dirname, '..', '..', '..', 'host', 'src');
const page = readFileSync(TROUBLESHOOTING_DOC, 'utf8');
const headings = new Set([...page.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchor(m[1] as string)));

describe('docs/troubleshooting.md', () => {
  it('has the tables scripts/gen-troubleshooting-doc.ts writes (run it after changing a reason or a log record)', () => {
    expect(page).toBe(withGeneratedTables(page));
  });

  it('says what to do about every Event reason, in a section of its own', () => {
    const missing = Object.keys(EVENT_REASONS).filter((reason) => !page.includes(`### \`${reason}\`\n`));
    expect(missing).toEqual([]);
  });

  it('places every error and warning record in an area that has a section', () => {
    const records = logRecords();
    // The scan itself works: it finds records of the controllers, the elector and the plugin runtime.
    expect(records.map((r) => r.message)).toEqual(
      expect.arrayContaining([
        'failed to renew lease: leadership lost',
        'could not create route',
        'plugin instance replaced',
      ]),
    );
    expect(records.filter((r) => r.area === undefined).map((r) => `${r.file}: ${r.message}`)).toEqual([]);
    const areas = new Set(Object.values(LOG_AREAS));
    expect([...areas].filter((area) => !headings.has(anchor(area)))).toEqual([]);
  });

  it('links only to sections the page has', () => {
    const links = [...page.matchAll(/\]\(#([a-z0-9-]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((target) => !headings.has(target))).toEqual([]);
  });
});

describe('Event reasons', () => {
  it('are recorded through recordReason only, so the catalog holds every one', () => {
    const files = readdirSync(HOST_SRC, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.startsWith('kube/events/'),
    );
    const direct = files.filter((f) => /\.recordEvent\(/.test(readFileSync(join(HOST_SRC, f), 'utf8')));
    expect(direct).toEqual([]);
    const through = files.filter((f) => readFileSync(join(HOST_SRC, f), 'utf8').includes('recordReason('));
    expect(through.length).toBeGreaterThanOrEqual(5);
  });
});
