// A plugin's log records reach the host logger tagged with the plugin, the method and the source; the plugin's own
// fields can add to a record but never speak for the host: a field named like a host tag is renamed, not applied.
import { describe, expect, it } from 'vitest';
import { createKlogLogger } from '../../../host/src/log/logger.ts';
import { pluginLogForwarder } from '../../../host/src/plugin/runtime/plugin-log.ts';
import { recordingLogger } from './support/recording-logger.ts';

function forward(record: unknown): Record<string, unknown> {
  const { logger, records } = recordingLogger();
  // As load-plugin binds it: the plugin's name, then the provider it serves (hot swap) and a shadow's version.
  const bound = logger.child({ plugin: 'acme', provider: 'acme-prod', shadow: '1.2.0' });
  pluginLogForwarder(() => bound)({
    type: 'log',
    slot: 1,
    exportName: 'ccm_instance_metadata',
    source: 'ccm_log',
    level: 'info',
    text: JSON.stringify(record),
  });
  expect(records).toHaveLength(1);
  return records[0]?.fields as Record<string, unknown>;
}

describe('plugin log records', () => {
  it("keep the plugin's own fields", () => {
    expect(forward({ level: 'info', message: 'looked up', fields: { node: 'n1', zone: 'z' } })).toEqual({
      plugin: 'acme',
      provider: 'acme-prod',
      shadow: '1.2.0',
      method: 'instanceMetadata',
      source: 'ccm_log',
      node: 'n1',
      zone: 'z',
    });
  });

  it("cannot override the host's tags: a colliding field is kept under field.<name>", () => {
    const spoof = {
      plugin: 'kube-apiserver',
      method: 'ensureLoadBalancer',
      source: 'runtime',
      provider: 'other',
      shadow: 'none',
      component: 'leader-election',
      node: 'n1',
    };
    expect(forward({ level: 'warn', message: 'hello', fields: spoof })).toEqual({
      plugin: 'acme',
      provider: 'acme-prod',
      shadow: '1.2.0',
      method: 'instanceMetadata',
      source: 'ccm_log',
      'field.plugin': 'kube-apiserver',
      'field.method': 'ensureLoadBalancer',
      'field.source': 'runtime',
      'field.provider': 'other',
      'field.shadow': 'none',
      'field.component': 'leader-election',
      node: 'n1',
    });
  });

  it('cannot take a renamed field’s place either: field.<name> of its own is renamed in turn', () => {
    const fields = forward({ level: 'info', message: 'x', fields: { plugin: 'a', 'field.plugin': 'b' } });
    expect(fields.plugin).toBe('acme');
    expect(fields['field.plugin']).toBe('a');
    expect(fields['field.field.plugin']).toBe('b');
  });

  it('cannot write a tag or a line of its own through a field name the text format writes as it is', () => {
    const forged = 'x\nE0101 00:00:00.000000       1 elector.go:1] "leadership lost" plugin';
    const fields = forward({ level: 'info', message: 'x', fields: { 'k="v" plugin': 'evil', [forged]: 'evil' } });
    expect(fields.plugin).toBe('acme');
    expect(fields['field.k__v__plugin']).toBe('evil');
    for (const name of Object.keys(fields)) expect(name).toMatch(/^[A-Za-z0-9_./-]+$/);
  });
});

describe('plugin log record callers', () => {
  it('are looked up once per plugin logger for its records, and anew for the warnings about bad ones', () => {
    const lines: string[] = [];
    let lookups = 0;
    const log = createKlogLogger({
      format: 'json',
      verbosity: 0,
      write: (l) => lines.push(l),
      caller: () => `plugin-log.js:${++lookups}`,
    });
    const forward = pluginLogForwarder(() => log);
    const message = (text: string) =>
      ({
        type: 'log',
        slot: 1,
        exportName: 'ccm_ensure_load_balancer',
        source: 'ccm_log',
        level: 'info',
        text,
      }) as const;
    forward(message(JSON.stringify({ level: 'info', message: 'created load balancer', fields: { name: 'a' } })));
    forward(message('not json'));
    forward(message(JSON.stringify({ level: 'info', message: 'created load balancer', fields: { name: 'b' } })));
    const records = lines.map((l) => JSON.parse(l) as { caller: string; msg: string });
    expect(records.map((r) => [r.msg, r.caller])).toEqual([
      ['created load balancer', 'plugin-log.js:1'],
      ['plugin wrote a log record that is not JSON', 'plugin-log.js:2'],
      ['created load balancer', 'plugin-log.js:1'],
    ]);
  });
});
