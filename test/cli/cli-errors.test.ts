/**
 * CLI mistakes an operator makes in the first hour, each answered with the real problem and the
 * command that fixes it: a VIN of another company, a mistyped option, an unreachable
 * database; and `plan add` defaulting like `oem add`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/service-process.js';
import { ALPHA_VINS, fixtureFleet } from '../support/fixture-fleet.js';

const run = promisify(execFile);

describe('CLI errors that name the real problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-cli-errors-'));
  const database = join(dir, 'cli.db');
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.TELEMATICS_JWT_KEYS;
  delete env.TELEMATICS_MASTER_KEYS;
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });
  const fails = (...args: string[]) => cli(...args).then(
    (r) => { throw new Error(`expected failure, got ${r.stdout}`); },
    (e: { code: number; stderr: string }) => e,
  );

  beforeAll(async () => {
    await cli('migrate', '--database', database);
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(fixtureFleet()));
    await cli('admin', 'apply', file, '--database', database);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a VIN registered to another company is added, then it says whose it is instead of pointing to vehicle set', async () => {
    const other = await fails('admin', 'vehicle', 'add', '--company', 'beta', '--vin', ALPHA_VINS[0], '--plate', 'X', '--oem', 'simmotors', '--model', 'M', '--year', '2020', '--database', database);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(`telematics: vehicle ${ALPHA_VINS[0]} is registered to company "alpha", not "beta": check the VIN (a vehicle cannot be moved between companies)\n`);
    const same = await fails('admin', 'vehicle', 'add', '--company', 'alpha', '--vin', ALPHA_VINS[0], '--plate', 'X', '--oem', 'simmotors', '--model', 'M', '--year', '2020', '--database', database);
    expect(same.stderr).toBe(`telematics: vehicle ${ALPHA_VINS[0]} already exists (change it with \`telematics admin vehicle set --vin ${ALPHA_VINS[0]}\`)\n`);
  });

  it('when an option is mistyped, then the unknown option is named, not a required one it stood for', async () => {
    const typo = await fails('admin', 'company', 'add', '--id', 'delta', '--nme', 'Delta', '--plan', 'full', '--database', database);
    expect(typo.stderr).toBe("error: unknown option '--nme'\n(Did you mean --name?)\n");
    const missing = await fails('admin', 'company', 'add', '--id', 'delta', '--plan', 'full', '--database', database);
    expect(missing.stderr).toBe("error: required option '--name <name>' not specified\n");
  });

  it('when PostgreSQL cannot be reached, then it says so and what to check, not that a migration failed', async () => {
    const down = await fails('admin', 'company', 'list', '--database', 'postgres://postgres@127.0.0.1:1/telematics');
    expect(down.stderr).toBe('telematics: cannot reach the database postgres://postgres@127.0.0.1:1/telematics: connection refused (is it running, and are --database / DATABASE_URL right?)\n');
  });

  it('when a plan is added without --datapoints or --commands, then it allows everything, as oem add does', async () => {
    await cli('admin', 'plan', 'add', '--name', 'open', '--database', database);
    const plans = JSON.parse((await cli('admin', 'plan', 'list', '--json', '--database', database)).stdout) as { name: string; datapoints: unknown; commands: unknown }[];
    expect(plans.find((p) => p.name === 'open')).toEqual({ name: 'open', datapoints: '*', commands: '*' });
  });
});
