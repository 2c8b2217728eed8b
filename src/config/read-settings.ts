/**
 * Reads settings from flags and the environment (a flag wins) over their parsed defaults. Problems
 * are collected, not thrown, so that one error can list them all.
 */
import { parseValue } from './parse-value.js';
import type { SettingSpec } from './setting-declaration.js';

/** The values while they are read: what was given or defaulted so far. */
export type SettingValues<Config> = { -readonly [K in keyof Config]?: Config[K] };

/** Where each value the operator set came from (its flag or variable), to name it in problems between settings. */
export type SettingSources<Config> = Partial<Record<keyof Config, string>>;

/** Flag values as the CLI parser hands them over, keyed like the configuration. */
export type FlagsOf<Config> = Partial<Record<keyof Config, string | number | boolean | undefined>>;

/** The defaults, parsed like flag values; a default its own parser refuses is a bug, thrown at once. */
export function parsedDefaults<Config>(specs: readonly SettingSpec<keyof Config & string>[]): Readonly<SettingValues<Config>> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const spec of specs) {
    values[spec.key] = spec.default === undefined ? undefined : parseValue(spec, spec.default, `the default of ${spec.key}`, problems);
  }
  if (problems.length > 0) throw new Error(`invalid defaults in SETTINGS: ${problems.join('; ')}`);
  return Object.freeze(values) as SettingValues<Config>;
}

export function readSettings<Config>(
  specs: readonly SettingSpec<keyof Config & string>[], defaults: Readonly<SettingValues<Config>>, flags: FlagsOf<Config>, env: NodeJS.ProcessEnv, problems: string[],
): { values: SettingValues<Config>; sources: SettingSources<Config> } {
  const values: Record<string, unknown> = { ...defaults };
  const sources: Record<string, string> = {};
  for (const spec of specs) {
    const flagValue = flags[spec.key];
    const envValue = spec.env === undefined ? undefined : env[spec.env];
    if (flagValue !== undefined) {
      const v = parseValue(spec, flagValue, spec.flag ?? spec.key, problems);
      if (v !== undefined) values[spec.key] = v;
      sources[spec.key] = spec.flag ?? spec.key;
    } else if (envValue !== undefined && envValue !== '') {
      const v = parseValue(spec, envValue, spec.env!, problems);
      if (v !== undefined) values[spec.key] = v;
      sources[spec.key] = spec.env!;
    }
  }
  return { values: values as SettingValues<Config>, sources: sources as SettingSources<Config> };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0] : `invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}
