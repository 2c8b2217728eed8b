import { chmodSync, renameSync, writeFileSync } from 'node:fs';

/**
 * Replaces `path` with `text` atomically (a crash leaves the old or the new file, never half of
 * one), readable by its owner only whatever the umask. `wx` refuses to write through a file or
 * link already at the temporary name.
 */
export function replacePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
