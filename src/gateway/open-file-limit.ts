/**
 * The process's open-file limit, which the tracker connection caps are sized from. Node has no
 * setrlimit, and needs none here: at start it raises its own soft limit to the hard one (node.cc,
 * PlatformInit), so what is read here is already as high as the process may go; raising the hard
 * limit is the operator's (LimitNOFILE= in systemd, `ulimit -Hn`, Docker's --ulimit nofile).
 * Linux only: elsewhere (no /proc) the limit is unknown and the caller assumes one.
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { devNull } from 'node:os';

export interface OpenFileLimit {
  readonly soft: number;
  readonly hard: number;
}

/** "unlimited" is read as the largest number of descriptors a Linux process can have. */
const UNLIMITED = 1_048_576;

/** The `Max open files` line of a /proc/<pid>/limits text; undefined when there is none. */
export function parseOpenFileLimit(limits: string): OpenFileLimit | undefined {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
  if (!m) return undefined;
  const read = (text: string) => (text === 'unlimited' ? UNLIMITED : Number(text));
  return { soft: read(m[1]!), hard: read(m[2]!) };
}

export function readOpenFileLimit(): OpenFileLimit | undefined {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether the process can open one more descriptor now: one open and close of the null device,
 * a few microseconds. Only "too many open files" (the process's or the system's) says no; any
 * other failure says yes, since nothing is known to be short then.
 */
export function canOpenDescriptor(): boolean {
  let fd: number;
  try {
    fd = openSync(devNull, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'EMFILE' && code !== 'ENFILE';
  }
  closeSync(fd);
  return true;
}
