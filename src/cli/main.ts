/** The `telematics` command. Returns the exit code; only bin/telematics.js touches the process. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/read-settings.js';
import { escapeUnsafeText } from '../domain/safe-text.js';
import { registerApply } from './admin/apply-command.js';
import { registerAppCommands } from './admin/app-commands.js';
import { registerCompanyCommands } from './admin/company-commands.js';
import { registerAuditCommands } from './admin/audit-commands.js';
import { registerUserCommands } from './admin/user-commands.js';
import { registerOperatorCommands } from './admin/operator-commands.js';
import { registerWebhookCommands } from './admin/webhook-commands.js';
import { registerOemCommands } from './admin/oem-commands.js';
import { registerPlanCommands } from './admin/plan-commands.js';
import { registerVehicleCommands } from './admin/vehicle-commands.js';
import { registerDevices } from './devices-command.js';
import { registerKeys } from './keys-command.js';
import { registerMigrate } from './migrate-command.js';
import { registerOpenApi } from './openapi-command.js';
import { registerOemSim } from './oem-sim-command.js';
import { registerTrips } from './trips-command.js';
import { errorLine, UsageError } from './output.js';
import { registerServe } from './serve-command.js';
import { unsupportedNodeWarning } from './node-support.js';
import { packageVersion } from '../package-version.js';

export function buildProgram(): Command {
  const program = new Command('telematics')
    .description('Self-hostable vehicle telematics service')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .exitOverride()
    .showHelpAfterError(false)
    // Commander quotes the unknown option or command it refuses; subcommands inherit this.
    .configureOutput({ outputError: (text, write) => write(escapeUnsafeText(text, { keepNewlines: true })) });
  registerServe(program);
  registerMigrate(program);
  registerKeys(program);
  registerOemSim(program);
  registerTrips(program);
  registerOpenApi(program);
  registerDevices(program);
  const admin = program.command('admin').description('operator tasks: fleet file, companies, plans, OEMs, applications, vehicles');
  registerApply(admin);
  registerCompanyCommands(admin);
  registerWebhookCommands(admin);
  registerAuditCommands(admin);
  registerUserCommands(admin);
  registerOperatorCommands(admin);
  registerPlanCommands(admin);
  registerOemCommands(admin);
  registerAppCommands(admin);
  registerVehicleCommands(admin);
  for (const command of [program, ...allCommands(program)]) {
    command.exitOverride();
    requireOptionsAfterUnknownOnes(command);
  }
  return program;
}

/**
 * Commander checks required options before unknown ones, so a mistyped `--nme` is reported as
 * "required option '--name' not specified". Checking them in a hook that runs after the unknown
 * option check names the typo instead; the message for a really missing option is Commander's.
 */
function requireOptionsAfterUnknownOnes(command: Command): void {
  const required = command.options.filter((o) => o.mandatory);
  if (required.length === 0) return;
  for (const option of required) option.mandatory = false;
  command.hook('preAction', (_hooked, acting) => {
    if (acting !== command) return;
    const missing = required.find((o) => command.getOptionValue(o.attributeName()) === undefined);
    if (missing) command.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
  });
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

export async function main(argv: readonly string[]): Promise<number> {
  const warning = unsupportedNodeWarning();
  if (warning) process.stderr.write(warning);
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(errorLine(error.message));
      return 1;
    }
    throw error;
  }
}
