/** Reading and creating a keys file: JSON, created with mode 0600 and never overwritten. */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateKeyringDocument, keyringFromDocument, type Keyring } from './keyring.js';

/** Like ssh with a private key: a keys file others can read is refused, not silently used. */
export function readKeyringFile(path: string): Keyring {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new Error(`keys file ${path} is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')}); run: chmod 600 ${path}`);
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    throw new Error(`cannot read keys file ${path}: ${(error as NodeJS.ErrnoException).code}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`keys file ${path} is not valid JSON`);
  }
  return keyringFromDocument(doc, `keys file ${path}`);
}

/** Writes a new keys file with mode 0600; exclusive: an existing file is never overwritten (EEXIST). */
export function writeNewKeyringFile(path: string): void {
  writeFileSync(path, `${JSON.stringify(generateKeyringDocument(), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // The mode given to writeFileSync is filtered by the umask; make it exact.
  chmodSync(path, 0o600);
}

/** Creates the keys file if it does not exist (exclusive create: two starting processes cannot both write it). */
export function ensureKeyringFile(path: string): { keyring: Keyring; created: boolean } {
  let created = false;
  try {
    statSync(path);
  } catch {
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeNewKeyringFile(path);
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { keyring: readKeyringFile(path), created };
}
