import type { Logger } from 'pino';
import { defaultKeysFile } from '../config/derived-settings.js';
import type { ServiceConfig } from '../config/settings.js';
import type { Keyring } from '../security/keyring.js';
import { loadKeyring } from '../security/load-keyring.js';

/** The JWT signing keys and master keys, from the environment or the keys file (made on first use beside a SQLite file). */
export function loadKeys(config: ServiceConfig, logger: Logger): Keyring {
  const keys = loadKeyring({
    jwtKeys: config.jwtKeys, masterKeys: config.masterKeys, keysFile: config.keysFile,
    keysFileIsDefault: config.keysFile !== undefined && config.keysFile === defaultKeysFile(config.database),
  });
  logger.info({ source: keys.source, created: keys.created }, keys.created ? 'keys generated' : 'keys loaded');
  return keys.keyring;
}
