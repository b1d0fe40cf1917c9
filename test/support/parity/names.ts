// Kubernetes names for the cloud objects and texts that carry a UID (route names carry the node's UID as their
// name hint, LB tags the Service's). Every UID is recorded when the harness creates or first sees the object, so a
// route of a Node deleted long ago still reads `<uid of Node/x>`: the two runs' different UIDs compare equal.
export class NameBook {
  readonly #byUid = new Map<string, string>();

  remember(kind: string, name: string, uid: string | undefined): void {
    if (uid) this.#byUid.set(uid, `${kind}/${name}`);
  }

  /** The object a UID belongs to, or undefined for a UID never recorded. */
  owner(uid: string): string | undefined {
    return this.#byUid.get(uid);
  }

  /** `text` with every recorded UID replaced by `<uid of Kind/name>`. */
  humanize(text: string): string {
    let out = text;
    for (const [uid, owner] of this.#byUid) if (out.includes(uid)) out = out.replaceAll(uid, `<uid of ${owner}>`);
    return out;
  }
}
