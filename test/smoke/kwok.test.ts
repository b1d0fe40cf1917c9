// kwok turns annotated fake Nodes Ready, so later tests and benchmarks can simulate whole clusters of kubelets.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  startKwok,
  adminKubeConfig,
  uniqueName,
} from '../../lab/controlplane/index.ts';
import type { ManagedProcess } from '../../lab/process/index.ts';
import { mapLimit } from '../support/limit.ts';

const NODES = 100;

describe('kwok', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  // Inside the control plane's directory, so an interrupted run leaves nothing the reaper does not remove.
  const logDir = mkdtempSync(join(info.dir, 'kwok-'));
  const prefix = uniqueName('kwok');
  const names = Array.from({ length: NODES }, (_, i) => `${prefix}-${i}`);
  let kwok: ManagedProcess | undefined;

  afterAll(async () => {
    await kwok?.stop();
    await mapLimit(names, 20, (name) => core.deleteNode({ name }).catch(() => undefined));
    rmSync(logDir, { recursive: true, force: true });
  });

  it(`turns ${NODES} annotated fake Nodes Ready`, async () => {
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir });
    // A node without the annotation must be left alone. It comes first: once every annotated node is Ready, kwok has
    // seen it too.
    const unmanaged = `${prefix}-unmanaged`;
    names.push(unmanaged);
    await core.createNode({ body: { metadata: { name: unmanaged } } });
    await mapLimit(names.slice(0, NODES), 20, (name) =>
      core.createNode({
        body: { metadata: { name, annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } } },
      }),
    );

    const deadline = Date.now() + 60_000;
    let ready = 0;
    while (Date.now() < deadline) {
      if (!kwok.running) throw new Error(`kwok exited:\n${kwok.tail()}`);
      const list = await core.listNode({ labelSelector: undefined });
      ready = list.items.filter(
        (n) =>
          n.metadata?.name?.startsWith(`${prefix}-`) &&
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      ).length;
      if (ready >= NODES) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(ready).toBe(NODES);
    const other = await core.readNode({ name: unmanaged });
    expect(other.status?.conditions ?? []).not.toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    );
  });
});
