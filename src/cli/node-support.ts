/**
 * Whether the Node.js running the CLI is one of the lines package.json `engines.node` names
 * (caret ranges, one per line: test/architecture/engines.test.ts keeps them so). npm only warns
 * about engines at install time; this says it again where it matters, at every start.
 */
import { readFileSync } from 'node:fs';

/** Lines left out on purpose, and why: said in the warning so nobody has to find the README. */
const KNOWN_PROBLEMS: Readonly<Record<number, string>> = {
  24: 'from 24.19, better-sqlite3 12 aborts the process when a prepared statement is garbage-collected (nodejs/node#65446)',
};

function engines(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
  return manifest.engines?.node ?? '';
}

const parts = (version: string): number[] => version.replace(/^v/, '').split('.').map(Number);

/** True when `version` is at or above one caret range's floor within that range's major. */
export function satisfiesCaretLines(version: string, range: string): boolean {
  const [major = 0, minor = 0, patch = 0] = parts(version);
  return range.split('||').some((alternative) => {
    const m = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
    if (!m) return false;
    const [floorMajor, floorMinor, floorPatch] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return major === floorMajor && (minor > floorMinor || (minor === floorMinor && patch >= floorPatch));
  });
}

/** A one-line warning when this Node is not a supported one; undefined when it is. */
export function unsupportedNodeWarning(version: string = process.versions.node, range: string = engines()): string | undefined {
  if (range === '' || satisfiesCaretLines(version, range)) return undefined;
  const problem = KNOWN_PROBLEMS[parts(version)[0]!];
  return `telematics: warning: Node.js ${version} is not a supported version (${range})${problem ? `: ${problem}` : ''}; see README "Why these tools"\n`;
}
