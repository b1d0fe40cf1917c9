// instanceStatusBatch (ABI 1.6) against the per-node calls it stands for, for the plugins' e2e tests: each node's
// exists outcome is its instanceExists answer, and its shutdown outcome its instanceShutdown answer where the instance
// exists; elsewhere shutdown is left at its defaults and not asked.
export interface PartOutcome {
  ok: unknown;
  error: { code: string; message: string };
}

export interface StatusOutcome {
  exists: PartOutcome;
  shutdown: PartOutcome;
}

/** Each node's instanceStatusBatch outcome as [exists, shutdown] answers, each written by `answer`. */
export function statusAnswers<A>(results: StatusOutcome[], answer: (o: PartOutcome) => A): [A, A][] {
  return results.map((r) => [answer(r.exists), answer(r.shutdown)]);
}

/**
 * What instanceStatusBatch must answer for nodes whose per-node calls answered `exists` and `shutdown`: a node's
 * shutdown answer only where its exists answer is true (`existsTrue`), else `notAsked` (false, no error).
 */
export function expectedStatus<A>(exists: A[], shutdown: A[], existsTrue: (a: A) => boolean, notAsked: A): [A, A][] {
  return exists.map((e, i) => [e, existsTrue(e) ? shutdown[i]! : notAsked]);
}
