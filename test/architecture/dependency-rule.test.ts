import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { dependencyViolations, importCircles, readSourceModules, type Violation } from '../support/dependency-rule.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Imports that break the rule today in files being reworked elsewhere; each is fixed at its cause
 * (e.g. depend on the domain's port instead of the adapter), then removed here. The test fails
 * when one no longer occurs, so the list only shrinks.
 */
const KNOWN_VIOLATIONS: readonly Pick<Violation, 'from' | 'to'>[] = [];

const key = (v: Pick<Violation, 'from' | 'to'>) => `${v.from} -> ${v.to}`;

describe('dependency rule', () => {
  const { modules, packages } = readSourceModules(root);
  const found = dependencyViolations(modules, packages);
  const known = new Set(KNOWN_VIOLATIONS.map(key));

  it('when src/ and packages/ are read, then no import goes up a layer, out of a package or into one by path', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(found.filter((v) => !known.has(key(v))).map((v) => `${key(v)}: ${v.why}`)).toEqual([]);
  });

  it('when a known violation is fixed, then it is taken off the list', () => {
    const still = new Set(found.map(key));
    expect([...known].filter((k) => !still.has(k))).toEqual([]);
  });

  it('when src/ is read, then no two modules and no two top-level folders import each other, directly or round a loop', () => {
    expect(importCircles(modules)).toEqual({ modules: [], folders: [] });
  });
});

describe('import circles on made-up modules', () => {
  const circles = (...modules: [string, ...string[]][]) => importCircles(modules.map(([path, ...specifiers]) => ({ path, specifiers })));

  it('when two modules import each other, then both are one circle, and so are their folders', () => {
    expect(circles(['src/queue/a.ts', './b.js'], ['src/queue/b.ts', './a.js'])).toEqual({ modules: [['src/queue/a.ts', 'src/queue/b.ts']], folders: [] });
    expect(circles(['src/http/a.ts', '../console/b.js'], ['src/console/b.ts', '../http/c.js'])).toEqual({ modules: [], folders: [['console', 'http']] });
  });

  it('when a loop runs through three folders, then it is reported once with all three', () => {
    const found = circles(['src/workers/w.ts', '../trips/t.js'], ['src/trips/t.ts', '../events/e.js'], ['src/events/e.ts', '../workers/p.js']);
    expect(found.folders).toEqual([['events', 'trips', 'workers']]);
  });

  it('when imports only run one way, or leave src/, then there is no circle', () => {
    expect(circles(['src/http/a.ts', '../domain/b.js', '@telematics/contract'], ['src/domain/b.ts', 'node:crypto'], ['src/cli/x.ts', '../service.js'], ['src/service.ts', './http/a.js']))
      .toEqual({ modules: [], folders: [] });
  });
});

describe('dependency rule on made-up modules', () => {
  const contract = { dir: 'packages/contract', dependencies: ['typebox'], devDependencies: ['typescript'] };
  const check = (path: string, ...specifiers: string[]) => dependencyViolations([{ path, specifiers }], [contract]).map((v) => v.to);

  it('when a lower layer imports a higher one, then it is reported', () => {
    expect(check('src/domain/x.ts', '../http/schemas.js')).toEqual(['src/http/schemas.ts']);
    expect(check('src/store/x.ts', '../commands/create-command.js')).toEqual(['src/commands/create-command.ts']);
    expect(check('src/commands/x.ts', '../oem/oem-connector.js')).toEqual(['src/oem/oem-connector.ts']);
    expect(check('src/sim/x.ts', '../cli/progress-bar.js')).toEqual(['src/cli/progress-bar.ts']);
  });

  it('when a module imports its own layer or a lower one, then it passes', () => {
    expect(check('src/http/x.ts', './schemas.js', '../commands/read-command.js', '../store/ping-database.js', '../domain/errors.js')).toEqual([]);
    expect(check('src/service.ts', './cli/progress-bar.js', './config/load-config.js')).toEqual([]);
    expect(check('src/security/x.ts', '../store/connection.js')).toEqual([]);
  });

  it('when a top-level directory of src/ is in no layer, then it is reported', () => {
    expect(check('src/nats/consumer.ts', '../domain/errors.js')).toEqual(['src/domain/errors.ts']);
  });

  it('when a package reaches outside itself or past its declared dependencies, then it is reported', () => {
    expect(check('packages/contract/src/x.ts', '../../../src/domain/vin.js', 'kysely', 'node:crypto', 'typebox', './errors.js'))
      .toEqual(['src/domain/vin.ts', 'kysely', 'node:crypto']);
  });

  it('when src/ reaches into a package by path, or the domain imports a library, then it is reported', () => {
    expect(check('src/http/x.ts', '../../packages/contract/src/errors.js', '@telematics/contract')).toEqual(['packages/contract/src/errors.ts']);
    expect(check('src/domain/x.ts', 'kysely', 'node:net', '@telematics/contract', 'flatbush')).toEqual(['kysely']);
  });

  it('when the service imports from test/ or bench/, or the domain a builtin that does I/O, then it is reported', () => {
    expect(check('src/http/x.ts', '../../test/support/fixture-fleet.js', '../../bench/lib/fixture.mjs')).toEqual(['test/support/fixture-fleet.ts', 'bench/lib/fixture.mjs']);
    expect(check('src/domain/x.ts', 'node:fs', 'node:child_process', 'fs', 'node:crypto')).toEqual(['node:fs', 'node:child_process', 'fs']);
  });
});
