import { describe, expect, it } from 'vitest';
import { RetryError } from '../../../../host/src/cloudprovider/index.ts';
import { step, SyncStepError } from '../../../../host/src/controllers/service/sync-step.ts';
import { findRetry } from '../../../../host/src/controllers/framework/workers.ts';

describe('sync steps (upstream fmt.Errorf with %v)', () => {
  it("words the failure as upstream and hides a provider's retry delay from the worker loop", async () => {
    const failed = step('failed to delete load balancer', Promise.reject(new RetryError('busy', 3)));
    await expect(failed).rejects.toThrow(SyncStepError);
    const err = await failed.catch((e: unknown) => e);
    expect((err as Error).message).toBe('failed to delete load balancer: busy');
    // Go's %v keeps only the text: errors.As finds no RetryError, so the queue's backoff applies.
    expect(findRetry(err)).toBeUndefined();
    expect(findRetry(new Error('failed to ensure load balancer', { cause: new RetryError('busy', 3) }))).toBeDefined();
  });

  it('passes a success through', async () => {
    await expect(step('x', Promise.resolve(7))).resolves.toBe(7);
  });
});
