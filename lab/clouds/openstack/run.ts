// What tells one running stack from another on the same machine: its id (in every process's environment and in
// its network namespace's name), its ports, and the clean-up of stacks whose owner died without stopping them.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { freePort, processAlive } from '../../process/index.ts';
import type { Ports } from './config.ts';
import { deleteNetns, listNetns } from './infra.ts';
import { killStack, reapOrphanStacks } from './process.ts';

const NETNS_PREFIX = 'wasm-ccm-os-';
/** A state directory of another key (other sources, another venv) unused this long is deleted. */
const STATE_UNUSED_MS = 3 * 24 * 3600_000;

/** `<owner pid>-<random>`: the owner's pid lets a later run tell a stale stack from a live one. */
export function newRunId(): string {
  return `${process.pid}-${randomBytes(4).toString('hex')}`;
}

export function netnsName(runId: string): string {
  return `${NETNS_PREFIX}${runId}`;
}

/** Kills the processes and deletes the network namespaces of stacks whose owning process is gone. */
export async function reapStaleStacks(): Promise<string[]> {
  const reaped = reapOrphanStacks();
  for (const netns of await listNetns(NETNS_PREFIX)) {
    const owner = Number(netns.slice(NETNS_PREFIX.length).split('-')[0]);
    if (owner > 0 && !processAlive(owner)) {
      await deleteNetns(netns);
      reaped.push(netns);
    }
  }
  return reaped;
}

export async function allocatePorts(): Promise<Ports> {
  const drawn = new Set<number>();
  // Ports freed a moment ago can be handed out twice: draw until there are enough different ones.
  while (drawn.size < 11) drawn.add(await freePort());
  const free = [...drawn];
  const take = (): number => free.pop() as number;
  return {
    mariadb: take(),
    amqp: take(),
    rabbitDist: take(),
    epmd: take(),
    keystone: take(),
    placement: take(),
    glance: take(),
    nova: take(),
    neutron: take(),
    octavia: take(),
    openflow: take(),
  };
}

const liveStacks = new Map<string, string>();
let hooksInstalled = false;

function killLiveStacks(): void {
  for (const [runId, netns] of liveStacks) {
    killStack(runId);
    try {
      execFileSync('ip', ['netns', 'delete', netns], { stdio: 'ignore' });
    } catch {
      // Never created, or gone.
    }
  }
  liveStacks.clear();
}

/**
 * Kills the stack's processes if this process exits or is interrupted before stop(): a test run that fails or is
 * aborted leaves no OpenStack behind (one killed outright is reaped by the next start). Returns the undo.
 */
export function killOnExit(runId: string, netns: string): () => void {
  liveStacks.set(runId, netns);
  if (!hooksInstalled) {
    hooksInstalled = true;
    process.on('exit', killLiveStacks);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const handler = (): void => {
        killLiveStacks();
        // Alone in handling the signal: restore its default action (terminate) by raising it again.
        if (process.listenerCount(signal) === 1) {
          process.removeListener(signal, handler);
          process.kill(process.pid, signal);
        }
      };
      process.on(signal, handler);
    }
  }
  return () => liveStacks.delete(runId);
}

/**
 * Marks the state directory `keep` used now and deletes the other keys' state directories unused for three days:
 * each edit of the lab's sources makes a new one (~150 MB), and nothing else ever removes the old ones.
 */
export function pruneStateDirs(keep: string): void {
  const now = new Date();
  utimesSync(keep, now, now);
  for (const name of readdirSync(dirname(keep))) {
    const dir = join(dirname(keep), name);
    if (name === basename(keep) || !name.startsWith('openstack-') || name.endsWith('.lock')) continue;
    // A key being initialized right now holds its lock.
    if (existsSync(`${dir}.lock`)) continue;
    if (now.getTime() - statSync(dir).mtimeMs > STATE_UNUSED_MS) rmSync(dir, { recursive: true, force: true });
  }
}
