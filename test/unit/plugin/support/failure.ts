// The error a synchronous call throws, for assertions on its class and fields; a call that returns fails the test.
export function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}
