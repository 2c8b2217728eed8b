import { describe, expect, it } from 'vitest';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { fixtureFleet } from '../support/fixture-fleet.js';

const problemsOf = (input: unknown) => {
  const v = validateFleetFile(input);
  return v.ok ? [] : v.problems;
};

describe('fleet file validation', () => {
  it('accepts the example of OPERATIONS.md, leaving omitted optional fields undefined for the store to default or keep', () => {
    const v = validateFleetFile({
      plans: [{ name: 'full', datapoints: '*', commands: '*' }],
      oems: [{ name: 'simmotors', connector: 'sim', ingest_key: 'k'.repeat(32), datapoints: '*', commands: ['diagnostics'] }],
      companies: [{
        id: 'acme', name: 'ACME Logistics', plan: 'full',
        applications: [{ name: 'dispatch' }],
        vehicles: [{ vin: '9BWZZZ377VT004251', plate: 'ABC1D23', oem: 'simmotors', model: 'Gol', year: 2022, sim: { profile: 'moving' } }],
      }],
    });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.fleet.companies[0]!.applications[0]).toEqual({
      name: 'dispatch', clientId: undefined, clientSecret: undefined, signSecret: undefined, tokenLifetime: undefined, enabled: undefined,
    });
    expect(v.fleet.companies[0]!.vehicles[0]).toMatchObject({ status: undefined, ownership: undefined, fuelCapacity: undefined, sim: { profile: 'moving', telemetry: true } });
  });

  it('accepts the test fixture', () => {
    expect(problemsOf(fixtureFleet())).toEqual([]);
  });

  it('names every bad entry by its path, all at once', () => {
    const problems = problemsOf({
      plans: [{ name: 'p', datapoints: ['speed', 'warp_factor'], commands: 'all' }],
      oems: [{ name: 'o', connector: 'carrier-pigeon', datapoints: '*', commands: '*', ingest_key: 'short' }],
      companies: [{
        id: 'acme', name: 'A', plan: 'p', colour: 'red',
        applications: [{ name: 'a', client_secret: 'too-short', token_lifetime: 10 }],
        vehicles: [
          { vin: '9BWZZZ377VT00425O', plate: 'X', oem: 'o', model: 'M', year: 1800, status: 'parked', ownership: 'stolen' },
          { vin: '9BWZZZ377VT004251', plate: 'Y', oem: 'o', model: 'M', year: 2020, fuel_capacity: -4 },
          { vin: '9BWZZZ377VT004251', plate: 'Z', oem: 'o', model: 'M', year: 2020 },
        ],
      }],
    });
    expect(problems.map((p) => p.path)).toEqual([
      'plans[0].datapoints[1]', 'plans[0].commands', 'oems[0].connector', 'oems[0].ingest_key',
      'companies[0].colour', 'companies[0].applications[0].client_secret', 'companies[0].applications[0].token_lifetime',
      'companies[0].vehicles[0].vin', 'companies[0].vehicles[0].year', 'companies[0].vehicles[0].status', 'companies[0].vehicles[0].ownership',
      'companies[0].vehicles[1].fuel_capacity', 'companies[0].vehicles[2].vin',
    ]);
    expect(problems.find((p) => p.path === 'companies[0].vehicles[0].vin')!.message).toContain('except I, O and Q');
    expect(problems.find((p) => p.path === 'companies[0].vehicles[2].vin')!.message).toBe('duplicate VIN "9BWZZZ377VT004251" (first at companies[0].vehicles[1].vin)');
  });

  it.each([
    ['a list', []],
    ['null', null],
    ['a string', 'fleet'],
  ])('refuses a file that is %s', (_label, input) => {
    expect(problemsOf(input)).toEqual([{ path: '(file)', message: 'must be an object' }]);
  });

  it('refuses control characters in text fields (they would not survive PostgreSQL, and do not belong in a name)', () => {
    expect(problemsOf({ companies: [{ id: 'a', name: 'New\u0000Co', plan: 'p' }] })).toEqual([
      { path: 'companies[0].name', message: 'must not contain control or invisible formatting characters (U+0000)' },
    ]);
  });

  it('refuses C1 controls, bidi overrides and invisible characters in every name, as the admin commands do', () => {
    const problems = problemsOf({
      oems: [{ name: 'o', connector: 'http', base_url: 'https://oem.example/\u202eexe', datapoints: '*', commands: '*' }],
      companies: [{
        id: 'a', name: 'ACME\u009b2J', plan: 'p\u200b',
        vehicles: [{ vin: '9BWZZZ377VT004251', plate: 'ABC\u202e1D23', oem: 'o', model: 'Gol\u2028', year: 2022 }],
      }],
    });
    expect(problems).toEqual([
      { path: 'oems[0].base_url', message: 'must not contain control or invisible formatting characters (U+202E)' },
      { path: 'companies[0].name', message: 'must not contain control or invisible formatting characters (U+009B)' },
      { path: 'companies[0].plan', message: 'must not contain control or invisible formatting characters (U+200B)' },
      { path: 'companies[0].vehicles[0].plate', message: 'must not contain control or invisible formatting characters (U+202E)' },
      { path: 'companies[0].vehicles[0].model', message: 'must not contain control or invisible formatting characters (U+2028)' },
    ]);
  });

  it('echoes what it refuses with terminal escapes made harmless (\\uXXXX), in messages and in paths', () => {
    const problems = problemsOf({
      plans: [{ name: 'p', datapoints: ['speed\u009b2J'], commands: '*' }],
      companies: [{
        id: 'a\u001b[2J', name: 'A', plan: 'p', '\u001b]0;pwned\u0007': true,
        applications: [{ name: 'evil\u001b]0;pwned\u0007' }, { name: 'evil\u001b]0;pwned\u0007' }],
        vehicles: [{ vin: '\u009b31m', plate: 'X', oem: 'o', model: 'M', year: 2020 }],
      }],
    });
    const printed = problems.map((p) => `${p.path}: ${p.message}`).join('\n');
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(problems).toContainEqual({ path: 'companies[0].applications[0].name', message: '"evil\\u001b]0;pwned\\u0007" is invalid (1-64 letters, digits, "_" or "-", starting with a letter or digit)' });
    expect(problems).toContainEqual({ path: 'companies[0].applications[1].name', message: 'duplicate application name "evil\\u001b]0;pwned\\u0007" (first at companies[0].applications[0].name)' });
    expect(problems).toContainEqual({ path: 'companies[0].\\u001b]0;pwned\\u0007', message: 'is not a known field' });
    expect(problems).toContainEqual({ path: 'plans[0].datapoints[0]', message: 'unknown datapoint "speed\\u009b2J"' });
    expect(printed).toContain('"a\\u001b[2J" is invalid');
    expect(printed).toContain('"\\u009b31m" is not a valid VIN');
  });

  it('requires a base URL for the http connector and refuses duplicate client ids', () => {
    const problems = problemsOf({
      oems: [{ name: 'real', connector: 'http', datapoints: '*', commands: '*' }],
      companies: [
        { id: 'a', name: 'A', plan: 'p', applications: [{ name: 'x', client_id: 'same' }] },
        { id: 'b', name: 'B', plan: 'p', applications: [{ name: 'y', client_id: 'same' }] },
      ],
    });
    expect(problems).toEqual([
      { path: 'oems[0].base_url', message: 'is required for the http connector' },
      { path: 'companies[1].applications[0].client_id', message: 'duplicate client_id "same" (first at companies[0].applications[0].client_id)' },
    ]);
  });
});
