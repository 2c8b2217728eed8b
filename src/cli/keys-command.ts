import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { addCurrentKey, removeKey, retirableKeyIndex, writeNewKeyringFile, type KeyKind } from '../security/keyring-file.js';
import { masterKeyUsage, resealUnderCurrentKey } from '../registry/master-key-rotation.js';
import { emit, processOutput, table, UsageError } from './output.js';
import { withStore, withStoreOptions } from './store-context.js';

const kindOf = (opts: { jwt?: boolean; master?: boolean }): KeyKind => {
  if (opts.jwt === opts.master) throw new UsageError('say which key: --jwt or --master');
  return opts.jwt ? 'jwt' : 'master';
};

/** The service's own keys; the rotation procedure is docs/configuration.md, "Rotating keys". */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('the service\'s own keys: create, rotate, re-seal, retire');
  keys.command('generate')
    .argument('<file>', 'where to write the new keys file (must not exist)')
    .description('create a keys file (JWT signing key and master key) with mode 0600, and its folder with mode 0700 if missing')
    .action((file: string) => {
      const folder = dirname(file);
      const madeFolder = !existsSync(folder);
      try {
        // Only the service's user should list the folder that holds its keys.
        if (madeFolder) mkdirSync(folder, { recursive: true, mode: 0o700 });
        writeNewKeyringFile(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new UsageError(code === 'EEXIST' ? `${file} already exists; refusing to overwrite keys` : `cannot write ${file}: ${code}`);
      }
      processOutput(false).out(madeFolder ? `wrote ${file} (and made ${folder}, mode 0700)` : `wrote ${file}`);
    });

  keys.command('rotate')
    .argument('<file>', 'the keys file')
    .option('--jwt', 'a new JWT signing key')
    .option('--master', 'a new master key')
    .description('put a new key first in a keys file (the old ones stay listed); restart the service to use it')
    .action((file: string, opts: { jwt?: boolean; master?: boolean }) => {
      const kind = kindOf(opts);
      let id: string;
      try {
        id = addCurrentKey(file, kind);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      processOutput(false).out(`${file}: new current ${kind} key "${id}"; restart every instance, then ${kind === 'master'
        ? '`telematics keys reseal`'
        : 'wait out the longest token lifetime'} before retiring the old one\n`);
    });

  withStoreOptions(keys.command('usage').description('what is stored under each master key (nothing may remain under a key before it is retired)'))
    .action(async (opts: Record<string, unknown>) => withStore(opts, async (ctx) => {
      const rows = await masterKeyUsage(ctx.store.db, ctx.keyring());
      emit(ctx.output, rows, () => table(rows.map((r) => ({
        key: r.keyId, state: r.current ? 'current' : r.known ? 'listed' : 'NOT LISTED',
        'sign-secrets': r.signSecrets, 'client-secret hashes': r.clientSecretHashes, 'ingest-key hashes': r.ingestKeyHashes,
        'kept responses': r.idempotentResponses, 'webhook secrets': r.webhookSecrets, 'TOTP secrets': r.totpSecrets, 'recovery-code hashes': r.recoveryCodeHashes,
      })), ['key', 'state', 'sign-secrets', 'client-secret hashes', 'ingest-key hashes', 'kept responses', 'webhook secrets', 'TOTP secrets', 'recovery-code hashes']));
    }));

  withStoreOptions(keys.command('reseal').description('seal every sign-secret, kept response, webhook and TOTP secret again under the current master key'))
    .action(async (opts: Record<string, unknown>) => withStore(opts, async (ctx) => {
      const report = await resealUnderCurrentKey(ctx.store.db, ctx.keyring());
      emit(ctx.output, report, () => `re-sealed ${report.signSecrets} sign-secrets, ${report.idempotentResponses} kept responses, ${report.webhookSecrets} webhook secrets and ${report.totpSecrets} TOTP secrets`
        + `${report.unopenable > 0 ? `; ${report.unopenable} are under a key no longer listed and cannot be opened` : ''}`
        + '\nclient-secret and ingest-key hashes are re-made on their next use, recovery codes when their person enrols again; see `telematics keys usage`');
    }));

  withStoreOptions(keys.command('retire').description('remove a key from the keys file; a master key only once nothing is stored under it'))
    .argument('<id>', 'the key id (kid of a JWT key, id of a master key)')
    .option('--jwt', 'a JWT signing key')
    .option('--master', 'a master key')
    .option('--force', 'retire a master key even though values stored under it become unreadable')
    // Key ids are base64url, so one in 64 starts with "-": take it as the id, not as an unknown
    // option (a mistyped option still fails: it is a second argument, or no key has that id).
    .allowUnknownOption()
    .action(async (id: string, opts: Record<string, unknown>) => withStore(opts, async (ctx) => {
      const kind = kindOf(opts as { jwt?: boolean; master?: boolean });
      const file = ctx.config.keysFile;
      if (ctx.config.jwtKeys !== undefined || file === undefined) {
        throw new UsageError('keys come from the environment: remove the key from TELEMATICS_JWT_KEYS / TELEMATICS_MASTER_KEYS yourself');
      }
      try {
        retirableKeyIndex(file, kind, id);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      if (kind === 'master' && opts.force !== true) {
        const usage = (await masterKeyUsage(ctx.store.db, ctx.keyring())).find((u) => u.keyId === id);
        const stored = usage ? usage.signSecrets + usage.clientSecretHashes + usage.ingestKeyHashes + usage.idempotentResponses + usage.webhookSecrets + usage.totpSecrets + usage.recoveryCodeHashes : 0;
        if (stored > 0) {
          throw new UsageError(`master key "${id}" still holds ${stored} stored values (run \`telematics keys reseal\`, and let clients and automakers `
            + 'use their secrets once, or rotate them; `telematics keys usage` shows what is left)');
        }
      }
      removeKey(file, kind, id);
      ctx.output.out(`${file}: ${kind} key "${id}" retired; restart every instance`);
    }));
}
