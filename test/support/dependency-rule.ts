/**
 * The dependency rule over the TypeScript import statements (every `import`, `import type`,
 * `export … from` and `import()`), read with TypeScript's own pre-processor so comments and
 * strings never count. Pure over a list of modules, so it can be tested on made-up trees too.
 *
 * In `src/`, a module may import its own layer and the layers below it, never one above:
 *   domain < security, store < use cases < adapters < entry points (LAYERS below).
 * In `packages/*`, a module may import only files of its own package and the npm packages its
 * package.json declares: never `src/`, never another package's files, and no Node builtins (the
 * contract, the SDK and the console run in browsers too).
 * `src/` reaches a package only by its name (`@telematics/contract`), never by a path into it.
 * And no circles: neither two modules nor two top-level folders of `src/` may import each other,
 * directly or round a loop (`importCircles`), so every folder can be read before the ones above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import ts from 'typescript';

export interface Layer {
  readonly name: string;
  /** Top-level directories or files of src/. */
  readonly members: readonly string[];
}

/** Lowest first; the order ARCHITECTURE.md and STYLE.md describe. */
export const LAYERS: readonly Layer[] = [
  { name: 'domain', members: ['domain'] },
  // package-version.ts reads the installation's package.json: I/O below every use of it, above none.
  { name: 'security and store', members: ['security', 'store', 'package-version.ts'] },
  { name: 'use cases', members: ['auth', 'registry', 'ingest', 'intake', 'telemetry', 'trips', 'commands', 'events', 'webhooks', 'geofences', 'alerts', 'audit', 'users', 'shares', 'operators', 'workers'] },
  { name: 'adapters', members: ['http', 'oem', 'sim', 'gateway', 'delivery', 'redis', 'queue'] },
  { name: 'entry points', members: ['cli', 'service.ts', 'roles', 'config', 'logger.ts', 'log-destination.ts'] },
];

export interface SourceModule {
  /** Repository-relative, `/`-separated. */
  readonly path: string;
  readonly specifiers: readonly string[];
}

export interface WorkspacePackage {
  /** Repository-relative directory, e.g. `packages/contract`. */
  readonly dir: string;
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
}

export interface Violation {
  readonly from: string;
  /** A repository path, or the npm package name for bare imports. */
  readonly to: string;
  readonly why: string;
}

const layerIndex = new Map(LAYERS.flatMap((layer, index) => layer.members.map((member) => [member, index] as const)));

/** `src/http/x.ts` → `http`; `src/service.ts` → `service.ts`. */
const srcMember = (file: string) => file.split('/')[1]!;

const packageNameOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(packageNameOf(specifier));

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (the ESM suffix names the emitted file). */
function resolveRelative(from: string, specifier: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
}

const isInside = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);

function srcViolation(from: string, to: string): Violation | undefined {
  const fromLayer = layerIndex.get(srcMember(from));
  const toLayer = layerIndex.get(srcMember(to));
  if (fromLayer === undefined) return { from, to, why: `src/${srcMember(from)} is in no layer: add it to LAYERS` };
  if (toLayer === undefined) return { from, to, why: `src/${srcMember(to)} is in no layer: add it to LAYERS` };
  if (toLayer > fromLayer) return { from, to, why: `${LAYERS[fromLayer]!.name} may not import ${LAYERS[toLayer]!.name}` };
  return undefined;
}

/** The builtins pure code may use: hashing, address parsing. Nothing that reads, writes or talks. */
const DOMAIN_BUILTINS: ReadonlySet<string> = new Set(['node:crypto', 'node:net']);
/** Libraries that only compute over values in memory: flatbush, the geofences' spatial index. */
const DOMAIN_LIBRARIES: ReadonlySet<string> = new Set(['flatbush']);

export function dependencyViolations(modules: readonly SourceModule[], packages: readonly WorkspacePackage[]): Violation[] {
  const violations: Violation[] = [];
  for (const { path: from, specifiers } of modules) {
    const owner = packages.find((p) => isInside(from, p.dir));
    for (const specifier of specifiers) {
      const relative = specifier.startsWith('.');
      const to = relative ? resolveRelative(from, specifier) : packageNameOf(specifier);
      if (owner) {
        if (relative && !isInside(to, owner.dir)) violations.push({ from, to, why: `a package may import only its own files (${owner.dir})` });
        if (!relative) {
          const runtime = isInside(from, `${owner.dir}/src`);
          const declared = runtime ? owner.dependencies : [...owner.dependencies, ...owner.devDependencies];
          if (!declared.includes(to)) {
            violations.push({ from, to, why: isBuiltin(specifier) ? 'a package may not use Node builtins' : `${to} is not a dependency of ${owner.dir}` });
          }
        }
        continue;
      }
      if (!isInside(from, 'src')) continue;
      if (relative && isInside(to, 'packages')) violations.push({ from, to, why: 'import a workspace package by its name, not by a path into it' });
      else if (relative && isInside(to, 'src')) {
        const found = srcViolation(from, to);
        if (found) violations.push(found);
      } else if (relative) {
        violations.push({ from, to, why: 'the service imports nothing outside src/ but packages by name (not test/, bench/ or scripts/)' });
      } else if (srcMember(from) === 'domain' && !to.startsWith('@telematics/') && !DOMAIN_BUILTINS.has(specifier) && !DOMAIN_LIBRARIES.has(to)) {
        violations.push({ from, to, why: `the domain does no I/O and imports no library: only ${[...DOMAIN_BUILTINS, ...DOMAIN_LIBRARIES].join(', ')} and the contract` });
      }
    }
  }
  return violations;
}

/** Strongly connected components with more than one node (Tarjan), each sorted, in a stable order. */
function circlesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1) circles.push(members.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export interface ImportCircles {
  /** Modules of `src/` that reach themselves through their imports. */
  readonly modules: string[][];
  /** Top-level folders (or root files) of `src/` that do. */
  readonly folders: string[][];
}

/** The import circles among `src/` modules and among its top-level folders. */
export function importCircles(modules: readonly SourceModule[]): ImportCircles {
  const moduleEdges = new Map<string, Set<string>>();
  const folderEdges = new Map<string, Set<string>>();
  const add = (edges: Map<string, Set<string>>, from: string, to: string) => {
    let targets = edges.get(from);
    if (!targets) edges.set(from, (targets = new Set()));
    targets.add(to);
  };
  for (const { path: from, specifiers } of modules) {
    if (!isInside(from, 'src')) continue;
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.')) continue;
      const to = resolveRelative(from, specifier);
      if (!isInside(to, 'src')) continue;
      add(moduleEdges, from, to);
      if (srcMember(from) !== srcMember(to)) add(folderEdges, srcMember(from), srcMember(to));
    }
  }
  return { modules: circlesOf(moduleEdges), folders: circlesOf(folderEdges) };
}

function listTypeScript(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : listTypeScript(root, rel);
    return /\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The service's and the workspace packages' modules, with what each imports. */
export function readSourceModules(root: string): { modules: SourceModule[]; packages: WorkspacePackage[] } {
  const packageDirs = readdirSync(path.join(root, 'packages'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `packages/${e.name}`);
  const packages = packageDirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    return {
      dir,
      dependencies: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
      devDependencies: Object.keys({ ...manifest.devDependencies }),
    };
  });
  const files = ['src', ...packageDirs].flatMap((dir) => listTypeScript(root, dir));
  const modules = files.map((file) => ({
    path: file,
    specifiers: ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true).importedFiles.map((f) => f.fileName),
  }));
  return { modules, packages };
}
