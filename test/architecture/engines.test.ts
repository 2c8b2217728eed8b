/**
 * The Node.js versions the project claims (package.json engines.node), the lines CI tests
 * (scripts/node-versions.json: the machine's line in .ci/run's own npm test, the others in
 * scripts/test-node-versions.sh) and the installed dependency tree agree: every installed package
 * that declares engines.node accepts the lowest version of every supported line, so `npm ci`
 * prints no EBADENGINE on any of them. Optional dependencies not installed on this platform are
 * not in node_modules and so not read.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { unsupportedNodeWarning } from '../../src/cli/node-support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface InstalledPackage {
  /** Repository-relative directory, `/`-separated, e.g. `node_modules/a/node_modules/b`. */
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  /** engines.node as declared, or undefined when the package declares none. */
  readonly node: string | undefined;
}

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

function enginesNode(manifest: Record<string, unknown>): string | undefined {
  const engines = manifest['engines'];
  if (engines === null || typeof engines !== 'object' || Array.isArray(engines)) return undefined;
  const node = (engines as Record<string, unknown>)['node'];
  return typeof node === 'string' ? node : undefined;
}

/** Every package under `dir`/node_modules, nested node_modules and symlinked workspace packages included. */
function installedPackages(base: string, seen = new Set<string>()): InstalledPackage[] {
  const found: InstalledPackage[] = [];
  const visit = (dir: string) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) return;
    const json = readJson(manifest);
    found.push({
      dir: path.relative(root, dir).split(path.sep).join('/'),
      name: String(json['name'] ?? path.basename(dir)),
      version: String(json['version'] ?? ''),
      node: enginesNode(json),
    });
    walk(path.join(real, 'node_modules'));
  };
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const full = path.join(modules, entry);
      if (!statSync(full).isDirectory()) continue;
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(full)) {
          const dir = path.join(full, scoped);
          if (statSync(dir).isDirectory()) visit(dir);
        }
      } else {
        visit(full);
      }
    }
  };
  walk(path.join(base, 'node_modules'));
  return found;
}

/** The lowest version of each line a range accepts, e.g. `^20.19.0 || ^22.12.0` → 20.19.0, 22.12.0. */
function lineFloors(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => {
    const floor = semver.minVersion(comparators.map((c) => c.value).join(' '));
    if (floor === null) throw new Error(`${range}: a part accepts no version`);
    return floor.version;
  });
}

/** Each package whose engines.node leaves out one of the floors, with the floors it leaves out. */
function enginesViolations(packages: readonly InstalledPackage[], floors: readonly string[]): string[] {
  return packages.flatMap((p) => {
    if (p.node === undefined) return [];
    const excluded = floors.filter((v) => !semver.satisfies(v, p.node as string));
    return excluded.length === 0 ? [] : [`${p.name}@${p.version} (${p.dir}): engines.node "${p.node}" excludes ${excluded.join(', ')}`];
  });
}

describe('supported Node.js versions', () => {
  const engines = enginesNode(readJson(path.join(root, 'package.json')));
  const lines = readJson(path.join(root, 'scripts/node-versions.json')) as { machine: number; others: number[] };
  const floors = lineFloors(engines ?? '');

  it('when package.json engines.node is read, then it names exactly the lines CI tests, each one line with its own floor', () => {
    expect(engines).toBeDefined();
    expect(floors.map((v) => semver.major(v))).toEqual([lines.machine, ...lines.others].sort((a, b) => a - b));
    // Each part is one major line (a caret range), not an open-ended ">=": a future line is
    // claimed only once CI tests it.
    for (const comparators of new semver.Range(engines ?? '').set) {
      const floor = semver.minVersion(comparators.map((c) => c.value).join(' '));
      expect(comparators.map((c) => c.value)).toEqual([`>=${floor?.version}`, `<${(floor?.major ?? 0) + 1}.0.0-0`]);
    }
  });

  it('when every installed package is read, then each that declares engines.node accepts the lowest version of every supported line', () => {
    const packages = installedPackages(root);
    expect(packages.length).toBeGreaterThan(100);
    expect(packages.map((p) => p.name)).toContain('@telematics/contract');
    expect(enginesViolations(packages, floors)).toEqual([]);
  });
});

describe('engines check on made-up packages', () => {
  const pkg = (name: string, node: string | undefined): InstalledPackage => ({ dir: `node_modules/${name}`, name, version: '1.0.0', node });

  it('when a range is read, then the lowest version of each of its lines is found', () => {
    expect(lineFloors('^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0')).toEqual(['20.19.0', '22.12.0', '24.0.0', '26.0.0']);
    expect(lineFloors('>=18')).toEqual(['18.0.0']);
  });

  it('when a package wants a newer Node than a supported line, then it is named with the versions it excludes', () => {
    const floors = ['20.19.0', '22.12.0', '24.0.0'];
    expect(enginesViolations([pkg('a', '>=22'), pkg('b', '>=18'), pkg('c', undefined), pkg('d', '^20 || ^22'), pkg('e', '>= 20.19.0 < 24')], floors)).toEqual([
      'a@1.0.0 (node_modules/a): engines.node ">=22" excludes 20.19.0',
      'd@1.0.0 (node_modules/d): engines.node "^20 || ^22" excludes 24.0.0',
      'e@1.0.0 (node_modules/e): engines.node ">= 20.19.0 < 24" excludes 24.0.0',
    ]);
  });
});

describe('the Node.js running the CLI', () => {
  it('when it is a supported line, then nothing is said; otherwise one warning names the supported lines and, for 24, why', () => {
    const range = '^20.19.0 || ^22.12.0 || ^26.0.0';
    expect(unsupportedNodeWarning('20.20.2', range)).toBeUndefined();
    expect(unsupportedNodeWarning('22.12.0', range)).toBeUndefined();
    expect(unsupportedNodeWarning('26.10.0', range)).toBeUndefined();
    expect(unsupportedNodeWarning('20.18.3', range)).toMatch(/^telematics: warning: Node\.js 20\.18\.3 is not a supported version \(\^20\.19\.0 \|\| \^22\.12\.0 \|\| \^26\.0\.0\); see README/);
    expect(unsupportedNodeWarning('24.21.0', range)).toContain('better-sqlite3 12 aborts');
    expect(unsupportedNodeWarning('18.20.0', range)).toContain('not a supported version');
  });

  it('when the tests run, then they run on a supported line (the machine moving to another Node fails here, not silently)', () => {
    expect(unsupportedNodeWarning()).toBeUndefined();
  });
});
