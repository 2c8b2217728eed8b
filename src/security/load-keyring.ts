import { keyringFromLists, type Keyring } from './keyring.js';
import { ensureKeyringFile, readKeyringFile } from './keyring-file.js';

export interface KeySources {
  readonly jwtKeys: string | undefined;
  readonly masterKeys: string | undefined;
  readonly keysFile: string | undefined;
  /** Whether `keysFile` is the default beside a SQLite database, which is created on first use. */
  readonly keysFileIsDefault: boolean;
}

export interface LoadedKeyring {
  readonly keyring: Keyring;
  readonly source: string;
  readonly created: boolean;
}

/**
 * Keys come from the environment, else from a keys file. Only the embedded default creates its
 * file: a PostgreSQL deployment with several instances must share one set of keys, so it fails
 * closed instead of each instance inventing its own.
 */
export function loadKeyring(sources: KeySources): LoadedKeyring {
  if (sources.jwtKeys !== undefined && sources.masterKeys !== undefined) {
    return { keyring: keyringFromLists(sources.jwtKeys, sources.masterKeys, 'environment'), source: 'environment', created: false };
  }
  if (sources.keysFile === undefined) {
    throw new Error('no keys configured: set TELEMATICS_JWT_KEYS and TELEMATICS_MASTER_KEYS, or --keys-file (create one with `telematics keys generate FILE`)');
  }
  if (sources.keysFileIsDefault) {
    const { keyring, created } = ensureKeyringFile(sources.keysFile);
    return { keyring, source: sources.keysFile, created };
  }
  return { keyring: readKeyringFile(sources.keysFile), source: sources.keysFile, created: false };
}
