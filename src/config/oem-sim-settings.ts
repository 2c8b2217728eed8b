/**
 * The settings of `telematics oem-sim`, read like `serve`'s: the simulated fleet's four are
 * SETTINGS' own rows (same kinds and bounds) under this command's shorter flags, and none of
 * them is read from `serve`'s variables; the two secrets may come from the environment. Each
 * tracker protocol adds its own option (its simulated device's endpoint), read by the command.
 */
import { ConfigError, parsedDefaults, readSettings, type FlagsOf } from './read-settings.js';
import { specsOf, type ConfigOf, type SettingDeclaration } from './setting-declaration.js';
import { LOG_LEVELS, SETTINGS, type ServiceSettingRow, type SettingKey } from './settings.js';

type ServeRow<K extends SettingKey> = Extract<ServiceSettingRow, { readonly key: K }>;

/** A `serve` setting's row under another key and flag, without its variable, its default replaced when given. */
function asOemSimSetting<K extends string, F extends SettingKey>(key: K, flag: string, from: F, replaced: { readonly default?: string } = {}) {
  const { env: _env, defaultText: _text, ...row } = SETTINGS.find((s) => s.key === from)!;
  return { ...row, key, flag, ...replaced } as unknown as Omit<ServeRow<F>, 'key' | 'flag' | 'env'> & { readonly key: K; readonly flag: string };
}

const DECLARED = [
  { key: 'port', flag: '--port', kind: 'integer', min: 0, max: 65535, default: 8090, description: 'port of the simulated automaker cloud (register its URL as the OEM\'s base_url with the http connector)' },
  { key: 'host', flag: '--host', kind: 'string', default: '127.0.0.1', description: 'address of the simulated automaker cloud' },
  { key: 'latency', flag: '--latency', kind: 'string', default: '1500-6000', unit: 'ms', description: 'vehicle answer latency range, e.g. 1500-6000' },
  asOemSimSetting('seed', '--seed', 'simSeed'),
  asOemSimSetting('period', '--period', 'simPeriod'),
  asOemSimSetting('backfill', '--backfill', 'simBackfill', { default: '0' }),
  asOemSimSetting('glitchRate', '--glitch-rate', 'simGlitchRate'),
  { key: 'ingestKey', flag: '--ingest-key', env: 'TELEMATICS_INGEST_KEY', kind: 'string', defaultText: 'the fleet file\'s', description: 'ingest key for OEMs whose key is not in the file' },
  { key: 'apiKey', flag: '--api-key', env: 'TELEMATICS_OEM_SIM_KEY', kind: 'string', secret: true, defaultText: '(none)', description: 'secret the cloud requires as Authorization: Bearer on every request, at least 32 characters (the variable keeps it out of ps); none by default, so keep the cloud on loopback' },
  { key: 'faultInitiateErrorRate', flag: '--fault-initiate-error-rate', kind: 'number', min: 0, max: 1, default: 0, description: 'share of command initiations the cloud answers with 500' },
  { key: 'faultMissingStatusUrlRate', flag: '--fault-missing-status-url-rate', kind: 'number', min: 0, max: 1, default: 0, description: 'share of initiations answered without a status URL' },
  { key: 'faultStatusDelay', flag: '--fault-status-delay', kind: 'number', min: 0, max: 600_000, default: 0, unit: 'ms', description: 'delay added to every status call' },
  { key: 'faultInitiateDelay', flag: '--fault-initiate-delay', kind: 'number', min: 0, max: 600_000, default: 0, unit: 'ms', description: 'delay added to every command initiation' },
  { key: 'faultHangStatus', flag: '--fault-hang-status', kind: 'boolean', default: false, description: 'status calls never answer' },
  { key: 'logLevel', flag: '--log-level', kind: 'choice', choices: LOG_LEVELS, default: 'info', description: 'log level' },
] as const satisfies readonly SettingDeclaration[];

export type OemSimConfig = ConfigOf<typeof DECLARED>;

export const OEM_SIM_SETTINGS = specsOf<keyof OemSimConfig>(DECLARED);

const DEFAULTS = parsedDefaults<OemSimConfig>(OEM_SIM_SETTINGS);

/** `oem-sim`'s settings from its flags and the environment; one ConfigError lists every problem. */
export function loadOemSimConfig(flags: FlagsOf<OemSimConfig>, env: NodeJS.ProcessEnv = process.env): OemSimConfig {
  const problems: string[] = [];
  const { values } = readSettings(OEM_SIM_SETTINGS, DEFAULTS, flags, env, problems);
  if (values.apiKey !== undefined && values.apiKey.length < 32) problems.push('--api-key (TELEMATICS_OEM_SIM_KEY) must be at least 32 characters');
  const latency = /^(\d+)-(\d+)$/.exec(values.latency!);
  if (!latency || Number(latency[1]) > Number(latency[2])) problems.push('--latency must be MIN-MAX milliseconds, e.g. 1500-6000');
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values as OemSimConfig);
}

/** `--latency MIN-MAX` as the pair (checked by loadOemSimConfig). */
export function latencyRangeOf(config: OemSimConfig): [number, number] {
  const [min, max] = config.latency.split('-').map(Number);
  return [min!, max!];
}
