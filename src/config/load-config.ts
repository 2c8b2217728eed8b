/**
 * Configuration: the one module that reads the environment. Every setting has a flag and/or an
 * environment variable (a flag wins), a default, a unit and a description (settings.ts);
 * docs/configuration.md lists them all and test/config.test.ts keeps the two in sync. Problems
 * are collected and reported together, and the result is frozen.
 */
import { crossCheckProblems } from './cross-checks.js';
import { derivedSettings } from './derived-settings.js';
import { ConfigError, parsedDefaults, readSettings, type FlagsOf } from './read-settings.js';
import { SETTINGS, type ServiceConfig } from './settings.js';

/** Flag values as the CLI parser hands them over, keyed like ServiceConfig. */
export type FlagValues = FlagsOf<ServiceConfig>;

/** Parsed at module load, so a default its own parser refuses fails every start, and every test. */
const DEFAULTS = parsedDefaults<ServiceConfig>(SETTINGS);

/** Builds the configuration from flags and the environment (flag wins). Throws one ConfigError listing every problem. */
export function loadConfig(flags: FlagValues = {}, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const { values: given, sources } = readSettings(SETTINGS, DEFAULTS, flags, env, problems);
  const values = { ...given, ...derivedSettings(given) };
  problems.push(...crossCheckProblems(values, sources));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values as ServiceConfig);
}
