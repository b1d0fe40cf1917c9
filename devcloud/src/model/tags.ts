// "key=value" / "key" filters shared by every list endpoint that filters on labels or tags.

export interface TagFilter {
  key: string;
  /** Undefined: the key only has to be present. */
  value?: string;
}

export function parseTagFilters(raw: readonly string[] | undefined): TagFilter[] {
  return (raw ?? []).map((s) => {
    const eq = s.indexOf('=');
    return eq < 0 ? { key: s } : { key: s.slice(0, eq), value: s.slice(eq + 1) };
  });
}

export function matchesTags(tags: Record<string, string>, filters: readonly TagFilter[]): boolean {
  return filters.every(({ key, value }) => (value === undefined ? Object.hasOwn(tags, key) : tags[key] === value));
}
