// A long-running command of the vendor's (`npm run dev`) in a process group of its own, as a terminal runs it: its
// output collected, waited on line by line, and Ctrl-C delivered the way a terminal delivers it, to the whole group.
import { spawn } from 'node:child_process';
import type { VendorShell } from './commands.ts';

export class Session {
  private text = '';
  readonly pid: number;
  /** Resolves once every process holding the output is gone (the group's last writer exited). */
  readonly closed: Promise<void>;

  constructor(shell: VendorShell, cwd: string, command: string, args: readonly string[]) {
    const child = spawn(command, [...args], { cwd, env: shell.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer): void => void (this.text += chunk.toString('utf8'));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    this.pid = child.pid ?? 0;
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
  }

  get output(): string {
    return this.text;
  }

  /** The first match of `pattern` in the output; fails naming the output when it does not come in time. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.text);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Ctrl-C: SIGINT to every process of the group. */
  interrupt(): void {
    process.kill(-this.pid, 'SIGINT');
  }

  /** A failed test's cleanup: Ctrl-C, so the session removes what it made, then SIGKILL to what is left. */
  async stop(graceMs = 30_000): Promise<void> {
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(-this.pid, name);
      } catch {
        // the group is gone
      }
    };
    signal('SIGINT');
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    await this.closed;
    clearTimeout(timer);
  }
}
