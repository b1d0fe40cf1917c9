// Server-side apply of rendered documents as their own text (application/apply-patch+yaml, strict field
// validation), so a misspelled field in a template is the apiserver's to refuse rather than dropped on the way by
// a typed client. Cluster-scoped kinds are the two the chart renders.
import { Agent, request } from 'undici';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';
import type { RenderedObject } from '../../../support/chart-model.ts';

const CLUSTER_SCOPED = new Set(['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);
const FIELD_MANAGER = 'wasm-ccm-chart-tests';

export interface ApplyReply {
  status: number;
  /** The apiserver's message for a failure, else the applied object's kind/namespace/name. */
  message: string;
  body: unknown;
}

/** The REST path of an object: every kind the chart renders is its lower-case plural with an "s". */
export function objectPath(object: RenderedObject['object']): string {
  const { apiVersion = '', kind = '', metadata } = object;
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const scope = CLUSTER_SCOPED.has(kind) ? '' : `/namespaces/${metadata?.namespace ?? 'default'}`;
  return `${base}${scope}/${kind.toLowerCase()}s/${metadata?.name ?? ''}`;
}

export class Apiserver {
  readonly #info: ControlPlaneInfo;
  readonly #agent: Agent;

  constructor(info: ControlPlaneInfo) {
    this.#info = info;
    this.#agent = new Agent({ connect: { ca: info.caPem } });
  }

  /** Applies one document's text; a dry run unless `dryRun` is false. */
  async apply(doc: Pick<RenderedObject, 'text' | 'object'>, dryRun = true): Promise<ApplyReply> {
    const query = `fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict${dryRun ? '&dryRun=All' : ''}`;
    return this.request('PATCH', `${objectPath(doc.object)}?${query}`, doc.text, 'application/apply-patch+yaml');
  }

  async delete(object: RenderedObject['object']): Promise<ApplyReply> {
    return this.request('DELETE', objectPath(object));
  }

  async request(method: string, path: string, body?: string, contentType?: string): Promise<ApplyReply> {
    const response = await request(new URL(path, this.#info.server), {
      method: method as 'PATCH' | 'DELETE' | 'GET' | 'POST',
      headers: {
        authorization: `Bearer ${this.#info.adminToken}`,
        accept: 'application/json',
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      body,
      dispatcher: this.#agent,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await response.body.text();
    const status = response.statusCode;
    let parsed: { kind?: string; message?: string; metadata?: { name?: string; namespace?: string } } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      // not JSON: the start of the text says why
    }
    const message =
      parsed.kind === 'Status'
        ? `${status}: ${parsed.message}`
        : `${status}: ${parsed.kind ?? text.slice(0, 200)} ${parsed.metadata?.namespace ?? ''}/${parsed.metadata?.name ?? ''}`;
    return { status, message, body: parsed };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
