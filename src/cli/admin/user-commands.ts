import type { Command } from 'commander';
import { ROLES } from '../../domain/roles.js';
import { formatIsoWithOffset } from '../../domain/time.js';
import {
  changeUserRole, findCompanyUserByEmail, inviteUser, listUsers, removeUser, resetUserPassword, type Invitation, type UserManager,
} from '../../users/manage-users.js';
import type { UserDeps } from '../../users/user-deps.js';
import { userSettingsOf } from '../../config/component-settings.js';
import { emit, table, type Output } from '../output.js';
import { asUsage } from './admin-context.js';
import { withStore, withStoreOptions, type StoreContext } from '../store-context.js';

/**
 * `admin user invite|list|role|reset|remove` (the role is `--as`: `--role` is the service's own setting): the operator manages any company's people (as an
 * owner would, and named `operator:cli` in the audit trail), most of all its first owner, who then
 * invites the others from the console (docs/people.md).
 */
const OPERATOR: UserManager = Object.freeze({ kind: 'operator', id: 'cli' });

/** The keyring is read only if used: managing people needs none, so no keys file is asked for. */
const depsOf = (ctx: StoreContext): UserDeps => ({
  store: ctx.store, get keyring() { return ctx.keyring(); }, clock: { now: () => Date.now() }, users: userSettingsOf(ctx.config),
});


function printLink(output: Output, invitation: Invitation, base: string | undefined): void {
  const path = `/console/#password=${invitation.link.token}`;
  const link = base === undefined ? path : `${base.replace(/\/+$/, '')}${path}`;
  const value = { email: invitation.user.email, role: invitation.user.role, link, link_expires: formatIsoWithOffset(invitation.link.expiresAt) };
  emit(output, value, () => [
    `${value.email} (${value.role}): ${link}`,
    `the link works once, until ${value.link_expires}; it is shown only now${base === undefined ? ' (prefix it with the console\'s address, or pass --url)' : ''}`,
  ].join('\n'));
}

export function registerUserCommands(admin: Command): void {
  const user = admin.command('user').description('a company\'s people: invitations, roles, password resets');

  withStoreOptions(user.command('invite').description('invite a person: prints a set-password link, once'))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--email <address>', 'their e-mail (their sign-in)')
    .requiredOption('--as <role>', `the role: ${ROLES.join(', ')}`)
    .option('--url <base>', 'the service\'s public address, to print the whole link (https://fleet.example.com)')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const invitation = await asUsage(() => inviteUser(depsOf(ctx), OPERATOR, opts.company!, { email: opts.email, role: opts.as }));
      printLink(ctx.output, invitation, opts.url);
    }));

  withStoreOptions(user.command('list').description('a company\'s people (never a secret)'))
    .requiredOption('--company <id>', 'company id')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = await listUsers(depsOf(ctx), opts.company!);
      emit(ctx.output, rows, () => table(rows as unknown as Record<string, unknown>[], ['email', 'role', 'status', 'second_factor', 'created_at']));
    }));

  withStoreOptions(user.command('role').description('change a person\'s role; their sessions end'))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--email <address>', 'whose')
    .requiredOption('--as <role>', `the role: ${ROLES.join(', ')}`)
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const deps = depsOf(ctx);
      const changed = await asUsage(async () => changeUserRole(deps, OPERATOR, opts.company!, (await findCompanyUserByEmail(deps, opts.company!, opts.email!)).id, { role: opts.as }));
      emit(ctx.output, changed, () => `${changed.email} is now ${changed.role}`);
    }));

  withStoreOptions(user.command('reset').description('clear a person\'s password and second factor, end their sessions; prints a new link, once'))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--email <address>', 'whose')
    .option('--url <base>', 'the service\'s public address, to print the whole link')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const deps = depsOf(ctx);
      const reset = await asUsage(async () => resetUserPassword(deps, OPERATOR, opts.company!, (await findCompanyUserByEmail(deps, opts.company!, opts.email!)).id));
      printLink(ctx.output, reset, opts.url);
    }));

  withStoreOptions(user.command('remove').description('remove a person; their sessions end'))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--email <address>', 'whom')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const deps = depsOf(ctx);
      await asUsage(async () => removeUser(deps, OPERATOR, opts.company!, (await findCompanyUserByEmail(deps, opts.company!, opts.email!)).id));
      emit(ctx.output, { removed: opts.email!.toLowerCase() }, () => `removed ${opts.email!.toLowerCase()}`);
    }));
}
