/** Whether `--database` names a PostgreSQL server (else it is a SQLite file path or `:memory:`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
