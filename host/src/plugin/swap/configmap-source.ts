// A module in a ConfigMap read through the API: one object watched by `metadata.name=` (list+watch through the kube
// machinery's Informer, so reconnects, 410s and backoff are handled there). Faster than a volume, which kubelet
// refreshes only every sync period (about a minute). The module is `binaryData[key]`; a detached signature may ride
// along as `<key>.sig` (binaryData, or data as base64 text). Both come from one object version: always consistent.
import type { KubeClient } from '../../kube/client/client.ts';
import type { KubeObject, WireObjectMeta } from '../../kube/client/wire.ts';
import { Informer } from '../../kube/informer/informer.ts';
import { listWatcher } from '../../kube/informer/list-watch.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import {
  type RevisionSource,
  type RevisionListener,
  signatureName,
  SourceError,
  type SourceRevision,
} from './source.ts';

export interface ConfigMapJson extends KubeObject {
  metadata?: WireObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

export interface ConfigMapSourceOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  key: string;
  logger?: Logger;
  /** How long start() waits for the first list (default 30 s). */
  syncTimeoutMs?: number;
}

export class ConfigMapSource implements RevisionSource {
  readonly description: string;
  readonly #options: ConfigMapSourceOptions;
  readonly #log: Logger;
  readonly #informer: Informer<ConfigMapJson>;
  #listener: RevisionListener | undefined;
  /** The base64 text of the module and signature last handed over: a change of anything else is not a revision. */
  #last = '';

  constructor(options: ConfigMapSourceOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger).child({ configMap: `${options.namespace}/${options.name}` });
    this.description = `configmap ${options.namespace}/${options.name}[${options.key}]`;
    const sigKey = signatureName(options.key);
    this.#informer = new Informer<ConfigMapJson>({
      name: `plugin-configmap-${options.namespace}-${options.name}`,
      listWatcher: listWatcher(
        options.client,
        `/api/v1/namespaces/${encodeURIComponent(options.namespace)}/configmaps`,
        {
          fieldSelector: `metadata.name=${options.name}`,
        },
      ),
      // Keep only the two keys we read: a ConfigMap can hold up to 1 MiB of other things.
      trim: (cm) => ({
        apiVersion: cm.apiVersion ?? 'v1',
        kind: cm.kind ?? 'ConfigMap',
        metadata: cm.metadata,
        data: pick(cm.data, sigKey),
        binaryData: pick(cm.binaryData, options.key, sigKey),
      }),
      logger: this.#log,
    });
    this.#informer.addEventHandler({
      onAdd: (cm) => this.#changed(cm),
      onUpdate: (_old, cm) => this.#changed(cm),
      onDelete: () => {
        this.#log.warn('plugin ConfigMap deleted; the current plugin keeps serving', { key: options.key });
      },
    });
  }

  async start(onRevision: RevisionListener): Promise<SourceRevision> {
    this.#informer.start();
    const timeout = AbortSignal.timeout(this.#options.syncTimeoutMs ?? 30_000);
    if (!(await this.#informer.waitForSync(timeout))) {
      await this.#informer.stop();
      const why = this.#informer.stats.lastError ? `: ${this.#informer.stats.lastError}` : '';
      throw new SourceError(`cannot read ConfigMap ${this.#options.namespace}/${this.#options.name}${why}`);
    }
    const cm = this.#informer.cache.get(`${this.#options.namespace}/${this.#options.name}`);
    const revision = cm === undefined ? undefined : this.#revisionOf(cm);
    if (cm === undefined || revision === undefined) {
      await this.#informer.stop();
      throw new SourceError(
        cm === undefined
          ? `ConfigMap ${this.#options.namespace}/${this.#options.name} not found`
          : `ConfigMap ${this.#options.namespace}/${this.#options.name} has no binaryData key "${this.#options.key}"`,
      );
    }
    this.#last = stamp(cm, this.#options.key);
    this.#listener = onRevision;
    return revision;
  }

  async stop(): Promise<void> {
    this.#listener = undefined;
    await this.#informer.stop();
  }

  #changed(cm: ConfigMapJson): void {
    // Before start() returns, the initial revision is what start() itself hands over.
    if (this.#listener === undefined) return;
    const current = stamp(cm, this.#options.key);
    if (current === this.#last) return;
    const revision = this.#revisionOf(cm);
    if (revision === undefined) {
      this.#log.warn('plugin ConfigMap has no module under its key; the current plugin keeps serving', {
        key: this.#options.key,
      });
      return;
    }
    this.#last = current;
    this.#listener(revision);
  }

  #revisionOf(cm: ConfigMapJson): SourceRevision | undefined {
    const module = cm.binaryData?.[this.#options.key];
    if (module === undefined) return undefined;
    const sigKey = signatureName(this.#options.key);
    const sigBinary = cm.binaryData?.[sigKey];
    // binaryData is base64 on the wire; a signature kept there is base64 of the base64 text or of the raw 64 bytes.
    const signature = sigBinary !== undefined ? signatureFromBinary(sigBinary) : cm.data?.[sigKey]?.trim();
    return {
      bytes: new Uint8Array(Buffer.from(module, 'base64')),
      signature: signature === '' ? undefined : signature,
      origin: `${this.description} rv ${cm.metadata?.resourceVersion ?? '?'}`,
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata },
      noticedAt: Date.now(),
    };
  }
}

function pick(map: Record<string, string> | undefined, ...keys: string[]): Record<string, string> | undefined {
  if (map === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const key of keys) if (map[key] !== undefined) out[key] = map[key];
  return out;
}

function stamp(cm: ConfigMapJson, key: string): string {
  const sigKey = signatureName(key);
  return `${cm.metadata?.uid ?? ''}|${cm.binaryData?.[key] ?? ''}|${cm.binaryData?.[sigKey] ?? ''}|${cm.data?.[sigKey] ?? ''}`;
}

/** A signature stored in binaryData: the raw 64 bytes, or the base64 text itself. Returned as base64 text. */
function signatureFromBinary(value: string): string {
  const raw = Buffer.from(value, 'base64');
  if (raw.length === 64) return raw.toString('base64');
  return raw.toString('utf8').trim();
}
