import { describe, expect, it } from 'vitest';
import { Agent } from '../../../host/src/net/undici-agent.ts';

describe('undici-agent', () => {
  it("is the Agent class 'undici' exports (a moved module would break this, not the CCM)", async () => {
    const undici = await import('undici');
    expect(Agent).toBe(undici.Agent);
    const agent = new Agent({ connections: 1 });
    expect(agent).toBeInstanceOf(undici.Dispatcher);
    await agent.close();
  });
});
