import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig } from '../config/load-config.js';
import { SETTINGS, type ServiceConfig } from '../config/settings.js';
import { createLogger, humanLogDestination } from '../logger.js';
import { progressBar, type Progress } from './progress-bar.js';
import { addSettingOptions, settingFlagsOf } from './setting-options.js';
import { Terminal } from './terminal.js';

/**
 * Serve flags come from the settings table, so the CLI, the environment and the docs cannot drift.
 * `run` is what the parsed configuration is handed to: the service, or a test's probe.
 */
export function registerServe(program: Command, run: (config: ServiceConfig) => Promise<void> = runService): void {
  const serve = program.command('serve').description('run the service');
  addSettingOptions(serve, SETTINGS);
  serve.action(async (_opts: unknown, command: Command) => {
    await run(loadConfig(settingFlagsOf(command, SETTINGS)));
  });
}

/** Runs the service until SIGTERM or SIGINT, then closes it (or exits after 10 s). */
async function runService(config: ServiceConfig): Promise<void> {
  // Imported here: the service's parts are most of the code, and the other commands need none of them.
  const { startService } = await import('../service.js');
  const terminal = new Terminal();
  const service = await startService(config, {
    logger: serviceLogger(config, terminal),
    print: (text) => terminal.print(text),
    progress: drawnOnFirstUse(() => progressBar('simulated fleet backfill', terminal)),
  });
  await waitForSignal();
  const timer = setTimeout(() => process.exit(1), 10_000);
  timer.unref();
  await service.close();
}

/**
 * Resolves on SIGTERM or SIGINT. It holds the process open itself: a `workers` process without
 * `--ops-port` has no listener, and the workers' timers never keep a process alive.
 */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** The bar times the backfill from its first report, not from the start of the process. */
function drawnOnFirstUse(make: () => Progress): Progress {
  let bar: Progress | undefined;
  return {
    update: (done, total) => (bar ??= make()).update(done, total),
    finish: (summary) => (bar ??= make()).finish(summary),
  };
}

/**
 * JSON lines unless a person reads them: `--log-format auto` picks lines for a person when stdout
 * is a terminal, written above the progress bar so the two never share a line.
 */
function serviceLogger(config: ServiceConfig, terminal: Terminal): Logger {
  const human = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  if (!human) return createLogger(config.logLevel);
  return createLogger(config.logLevel, humanLogDestination((text) => terminal.print(text), process.stdout.isTTY === true));
}
