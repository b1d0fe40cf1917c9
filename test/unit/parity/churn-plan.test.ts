// The churn scenario's plan: the same seed gives the same edits (both CCMs must get one sequence), every kind of
// edit occurs, and a step never mixes Node and Service edits nor edits one Service twice.
import { describe, expect, it } from 'vitest';
import {
  applyEdit,
  CHURN_SIZE,
  includedNodes,
  initialChurnState,
  planChurn,
} from '../../e2e/parity/scenarios/churn-plan.ts';
import { mulberry32 } from '../../../devcloud/src/index.ts';

describe('churn plan', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(JSON.stringify(planChurn().map((s) => s.edits))).toBe(JSON.stringify(planChurn().map((s) => s.edits)));
    const other = planChurn({ ...CHURN_SIZE, seed: CHURN_SIZE.seed + 1 });
    expect(JSON.stringify(other.map((s) => s.edits))).not.toBe(JSON.stringify(planChurn().map((s) => s.edits)));
  });

  it('draws uniform numbers in [0, 1) from mulberry32', () => {
    const random = mulberry32(1);
    const draws = Array.from({ length: 10_000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(draws.reduce((a, b) => a + b, 0) / draws.length).toBeCloseTo(0.5, 1);
  });

  it('covers every kind of edit with the scenario size', () => {
    const kinds = new Set(planChurn().flatMap((s) => s.edits.map((e) => `${e.on} ${e.kind}`)));
    expect([...kinds].sort()).toEqual(
      [
        'node add',
        'node delete',
        'node exclude',
        'node include',
        'node notReady',
        'node ready',
        'service create',
        'service delete',
        'service describe',
        'service port',
        'service toClusterIP',
        'service toLoadBalancer',
      ].sort(),
    );
  });

  it('keeps Node and Service edits in separate steps, one edit per Service per step', () => {
    for (const step of planChurn()) {
      const on = new Set(step.edits.map((e) => e.on));
      expect(on.size).toBe(1);
      if (on.has('node')) expect(step.edits).toHaveLength(1);
      const services = step.edits.flatMap((e) => (e.on === 'service' ? [e.service] : []));
      expect(new Set(services).size).toBe(services.length);
    }
  });

  it('says a step changed the node set exactly when the included nodes differ', () => {
    let state = initialChurnState(CHURN_SIZE);
    for (const step of planChurn()) {
      const next = step.edits.reduce(applyEdit, state);
      expect(step.nodeSetChanged).toBe(includedNodes(next).join() !== includedNodes(state).join());
      expect(next).toEqual(step.after);
      state = next;
    }
  });
});
