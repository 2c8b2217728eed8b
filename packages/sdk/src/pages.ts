/** A cursor-paged list read as one sequence: each page from `first` on, until one has no next_cursor. */
export async function* eachOfPages<T>(
  first: string | undefined, page: (cursor: string | undefined) => Promise<{ readonly data: readonly T[]; readonly next_cursor: string | null }>,
): AsyncGenerator<T> {
  let cursor = first;
  for (;;) {
    const answer = await page(cursor);
    yield* answer.data;
    if (answer.next_cursor === null) return;
    cursor = answer.next_cursor;
  }
}
