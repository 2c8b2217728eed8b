import type { Command } from 'commander';
import { loadConfig, SETTINGS, type FlagValues } from '../config.js';
import { startService } from '../service.js';

/** Serve flags come from the settings table, so the CLI, the environment and the docs cannot drift. */
export function registerServe(program: Command): void {
  const serve = program.command('serve').description('run the service');
  for (const spec of SETTINGS) {
    if (spec.flag === undefined) continue;
    if (spec.kind === 'boolean') {
      serve.option(spec.flag, `${spec.description} (env ${spec.env})`);
      if (spec.negatable) serve.option(`--no-${spec.flag.slice(2)}`, `turn ${spec.flag} off`);
    } else if (spec.kind === 'trust-proxy') {
      // A bare `--trust-proxy` (the old on/off form) means one proxy.
      serve.option(`${spec.flag} [value]`, `${spec.description} (env ${spec.env}, default ${spec.defaultText})`);
    } else {
      serve.option(`${spec.flag} <value>`, `${spec.description} (env ${spec.env}, default ${spec.defaultText})`);
    }
  }
  serve.action(async (opts: FlagValues) => {
    const config = loadConfig(opts);
    const service = await startService(config);
    await waitForSignal();
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await service.close();
  });
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
