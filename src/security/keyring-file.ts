/** Reading and creating a keys file: JSON, created with mode 0600 and never overwritten. */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { replacePrivateFile } from './private-file.js';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { generateKeyringDocument, KEY_BYTES, keyId, keyringFromDocument, type Keyring, type KeyringDocument } from './keyring.js';

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

export type KeyKind = 'jwt' | 'master';

function readDocument(path: string): KeyringDocument {
  readKeyringFile(path); // the same checks as the service: mode, JSON, keys
  return JSON.parse(readFileSync(path, 'utf8')) as KeyringDocument;
}

/** Replaces the file atomically (a crash leaves the old or the new file, never half of one). */
function writeDocument(path: string, doc: KeyringDocument): void {
  keyringFromDocument(doc, `new keys for ${path}`);
  replacePrivateFile(path, `${JSON.stringify(doc, null, 2)}\n`);
}

/** Puts a new random key of `kind` first (current); the others stay listed. Returns its id. */
export function addCurrentKey(path: string, kind: KeyKind): string {
  const doc = readDocument(path);
  const key = randomBytes(KEY_BYTES);
  const id = keyId(key);
  if (kind === 'jwt') writeDocument(path, { ...doc, jwt: [{ kid: id, secret: key.toString('base64') }, ...doc.jwt] });
  else writeDocument(path, { ...doc, master: [{ id, key: key.toString('base64') }, ...doc.master] });
  return id;
}

/** Removes the key `id` of `kind`; refuses the current key and the last one. */
/** Where `id` is in the file's list of `kind` keys; throws unless it is there and not the current one. */
export function retirableKeyIndex(path: string, kind: KeyKind, id: string): number {
  const ids = readKeyringFile(path)[kind].map((k) => k.id);
  const index = ids.indexOf(id);
  if (index < 0) throw new Error(`${path} has no ${kind} key "${id}" (it has: ${ids.join(', ')})`);
  if (index === 0) throw new Error(`"${id}" is the current ${kind} key; add a new one first (keys rotate)`);
  return index;
}

export function removeKey(path: string, kind: KeyKind, id: string): void {
  const doc = readDocument(path);
  const index = retirableKeyIndex(path, kind, id);
  if (kind === 'jwt') writeDocument(path, { ...doc, jwt: doc.jwt.filter((_, i) => i !== index) });
  else writeDocument(path, { ...doc, master: doc.master.filter((_, i) => i !== index) });
}
