// The outcome of a call made through the swappable provider, kept whole so a shadow comparison sees errors too.
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
