import type { Command } from 'commander';
import { writeNewKeyringFile } from '../security/keyring-file.js';
import { UsageError } from './output.js';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('the service\'s own keys');
  keys.command('generate')
    .argument('<file>', 'where to write the new keys file (must not exist)')
    .description('create a keys file (JWT signing key and master key) with mode 0600')
    .action((file: string) => {
      try {
        writeNewKeyringFile(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new UsageError(code === 'EEXIST' ? `${file} already exists; refusing to overwrite keys` : `cannot write ${file}: ${code}`);
      }
      process.stdout.write(`wrote ${file}\n`);
    });
}
