/**
 * A fresh database for one benchmark run: a SQLite file in a temporary folder, or a PostgreSQL
 * database created on `adminUrl` (a server where databases may be created and dropped).
 * `drop()` removes it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The PostgreSQL server benchmarks may use, unless `--sqlite-only` was given. */
export function benchPostgresUrl(args) {
  if (args.has('--sqlite-only')) return undefined;
  return [process.env.BENCH_DATABASE_URL, process.env.TEST_DATABASE_URL].find((u) => u && /^postgres(ql)?:\/\//i.test(u));
}

async function onAdmin(adminUrl, statement) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(kind, adminUrl) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'telematics-bench-'));
    return { url: join(dir, 'bench.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `tlm_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
