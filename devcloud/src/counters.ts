// Per-operation request counters, so tests can assert "the provider called createLoadBalancer once"
// or "three listInstances calls were throttled". Counted when the response is sent, with its status.

export interface OpCounter {
  method: string;
  route: string;
  total: number;
  byStatus: Record<string, number>;
}

export class Counters {
  #byOp = new Map<string, OpCounter>();

  record(op: string, method: string, route: string, status: number): void {
    let c = this.#byOp.get(op);
    if (!c) {
      c = { method, route, total: 0, byStatus: {} };
      this.#byOp.set(op, c);
    }
    c.total++;
    const key = String(status);
    c.byStatus[key] = (c.byStatus[key] ?? 0) + 1;
  }

  snapshot(): Record<string, OpCounter> {
    return structuredClone(Object.fromEntries(this.#byOp));
  }

  reset(): void {
    this.#byOp = new Map();
  }
}
