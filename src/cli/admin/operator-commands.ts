import type { Command } from 'commander';
import { userSettingsOf } from '../../config/component-settings.js';
import { addOperator, listOperators, removeOperator, setOperatorPasswordOf, type OperatorDeps, type OperatorPassword } from '../../operators/manage-operators.js';
import { emit, table, UsageError, type Output } from '../output.js';
import { asUsage } from './admin-context.js';
import { withStore, withStoreOptions, type StoreContext } from '../store-context.js';

/**
 * `admin operator add|password|remove|list`: who may sign in to the operator console
 * (`/operator/`). Only the command line makes an operator, so whoever holds the database and the
 * machine decides who runs the service from a browser.
 */
const depsOf = (ctx: StoreContext): OperatorDeps => ({ db: ctx.store.db, passwordHashCost: userSettingsOf(ctx.config).passwordHashCost, now: () => Date.now() });


/** The first line of standard input, for `--password-stdin` (a password never belongs in argv or the shell's history). */
async function passwordFromStdin(): Promise<string> {
  // Typed at a terminal it would be echoed there: pipe it from a password manager or a file.
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads a pipe, not a terminal (a typed password would be shown): printf \'%s\\n\' "$PASSWORD" | telematics admin operator …');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (line === '') throw new UsageError('--password-stdin: standard input held no password');
  return line;
}

function printPassword(output: Output, result: OperatorPassword, verb: string): void {
  emit(output, result, () => result.password === undefined
    ? `operator ${result.email} ${verb}`
    : `operator ${result.email} ${verb}\npassword=${result.password}\n(shown only now: sign in at /operator/ with it)`);
}

export function registerOperatorCommands(admin: Command): void {
  const operator = admin.command('operator').description('who signs in to the operator console (/operator/)');

  withStoreOptions(operator.command('add').description('add an operator; a password is generated and printed once unless --password-stdin'))
    .requiredOption('--email <address>', 'their e-mail (their sign-in)')
    .option('--password-stdin', 'read the password (12 to 256 characters) from standard input')
    .action(async (opts: Record<string, string | boolean>) => withStore(opts, async (ctx) => {
      const password = opts.passwordStdin === true ? await passwordFromStdin() : undefined;
      printPassword(ctx.output, await asUsage(() => addOperator(depsOf(ctx), opts.email as string, password)), 'added');
    }));

  withStoreOptions(operator.command('password').description('replace an operator\'s password (generated and printed once unless --password-stdin); their sessions end'))
    .requiredOption('--email <address>', 'whose')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (opts: Record<string, string | boolean>) => withStore(opts, async (ctx) => {
      const password = opts.passwordStdin === true ? await passwordFromStdin() : undefined;
      printPassword(ctx.output, await asUsage(() => setOperatorPasswordOf(depsOf(ctx), opts.email as string, password)), 'has a new password');
    }));

  withStoreOptions(operator.command('remove').description('remove an operator; their sessions end'))
    .requiredOption('--email <address>', 'whom')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      await asUsage(() => removeOperator(depsOf(ctx), opts.email!));
      emit(ctx.output, { removed: opts.email!.toLowerCase() }, () => `operator ${opts.email!.toLowerCase()} removed`);
    }));

  withStoreOptions(operator.command('list').description('the operators (never a password)'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = await listOperators(depsOf(ctx));
      emit(ctx.output, rows, () => table(rows, ['email', 'created_at', 'password_changed_at']));
    }));
}
