/**
 * A SQLite database holds every company's positions, so only the service's user may read it: the
 * folders made for it are 0700 and the file 0600. SQLite gives the -wal and -shm it creates the
 * database file's mode (exactly, whatever the umask), so they follow.
 */
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/**
 * Creates the missing folders 0700. Only those: a folder that exists was chosen by the operator
 * (the current directory, /tmp, a shared volume) and is theirs to set.
 */
function makeFolders(folder: string): void {
  const first = mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
  if (first === undefined) return;
  // mkdir's mode passes through the umask, which could take the owner's bits away; make it exact.
  let made = first;
  chmodSync(made, FOLDER_MODE);
  for (const part of relative(first, folder).split(sep).filter(Boolean)) {
    made = join(made, part);
    chmodSync(made, FOLDER_MODE);
  }
}

/**
 * A file readable or writable by others (an earlier version created them 0644) loses those bits,
 * silently, when this process owns it; a file of another user is left as it is (chmod would fail,
 * and such a file is its owner's business).
 */
function tighten(path: string): void {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // Regular files only: `--database /tmp` must fail in SQLite, not make /tmp private.
  if (stat.isFile() && (stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(path, stat.mode & 0o700);
}

/** Makes sure `file` exists with mode 0600 (an empty file is a new SQLite database) in folders only its owner can enter. */
export function preparePrivateDatabaseFile(file: string): void {
  if (process.platform === 'win32') {
    mkdirSync(dirname(file), { recursive: true });
    return; // POSIX modes mean nothing there; the folder's ACL decides
  }
  makeFolders(dirname(file));
  if (!existsSync(file)) {
    try {
      // Exclusive: two processes starting at once cannot both create it, and neither truncates it.
      closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, FILE_MODE));
      chmodSync(file, FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  for (const path of [file, `${file}-wal`, `${file}-shm`]) tighten(path);
}
