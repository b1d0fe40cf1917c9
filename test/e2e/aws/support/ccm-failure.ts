// A scenario's failure with the tail of the CCM's log, which says why more often than the assertion does.
export function ccmFailure(what: string, err: unknown, tail: string | undefined): Error {
  return new Error(`${what}: ${String(err)}\nCCM log tail:\n${tail ?? '(not started)'}`, { cause: err });
}
