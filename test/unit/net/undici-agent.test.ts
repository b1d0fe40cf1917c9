import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../host/src/net/undici-agent.ts';

describe('undici-agent', () => {
  it("is the Agent class 'undici' exports (a moved module would break this, not the CCM)", async () => {
    const undici = await import('undici');
    expect(Agent).toBe(undici.Agent);
  });

  it("gives agents the dispatcher API (request) without loading undici's index", () => {
    const module = new URL('../../../host/src/net/undici-agent.ts', import.meta.url).href;
    const script = `
      import { createRequire } from 'node:module';
      const { Agent } = await import('${module}');
      const agent = new Agent({ connections: 1 });
      const index = createRequire(import.meta.url).resolve('undici');
      const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        request: typeof agent.request,
        stream: typeof agent.stream,
        indexLoaded: loaded.includes(index),
      }));
      await agent.close();`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: new URL('../../../', import.meta.url).pathname,
    });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? 'null')).toEqual({
      request: 'function',
      stream: 'function',
      indexLoaded: false,
    });
  });
});
