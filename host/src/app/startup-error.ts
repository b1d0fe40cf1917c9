// The error a start-up phase ends the start with: main.ts prints its message and exits 1.
export class StartupError extends Error {
  override name = 'StartupError';
}
