// The informer's cache: the latest known state of every object, by key ("namespace/name" or "name").
import type { KubeObject } from '../client/wire.ts';

/** What controllers read. Objects are shared with the informer: never mutate them (copy first). */
export interface Store<T extends KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  listKeys(): string[];
  readonly size: number;
  /** True once the first list has been stored and its notifications delivered. */
  hasSynced(): boolean;
}

export class CacheStore<T extends KubeObject> implements Store<T> {
  private readonly items = new Map<string, T>();
  private synced = false;

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  set(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.items.get(key);
    this.items.delete(key);
    return old;
  }

  entries(): IterableIterator<[string, T]> {
    return this.items.entries();
  }

  markSynced(): void {
    this.synced = true;
  }
}
