// Optional paging for list endpoints. Lists are ordered by their key (id or name); pageToken is the
// last key of the previous page, so a page stays correct when items are added or deleted meanwhile.

export const pagingQuery = {
  limit: { type: 'integer', minimum: 1, maximum: 10_000 },
  pageToken: { type: 'string', maxLength: 253 },
} as const;

export interface PagingQuery {
  limit?: number;
  pageToken?: string;
}

export interface Page<T> {
  items: T[];
  /** Pass as pageToken for the next page; null on the last page. */
  nextPageToken: string | null;
}

export function paginate<T>(items: T[], key: (t: T) => string, q: PagingQuery): Page<T> {
  const keyed = items
    .map((item) => [key(item), item] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const start = q.pageToken === undefined ? keyed : keyed.filter(([k]) => k > (q.pageToken as string));
  const limit = q.limit ?? start.length;
  const page = start.slice(0, limit);
  const more = start.length > limit;
  return { items: page.map(([, item]) => item), nextPageToken: more ? page[page.length - 1]![0] : null };
}
