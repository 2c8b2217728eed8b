/**
 * A command's options made from settings rows, so its flags, the environment and the docs cannot
 * drift, and the values given read back keyed by setting.
 */
import type { Command } from 'commander';
import type { SettingSpec } from '../config/setting-declaration.js';

export function addSettingOptions(command: Command, specs: readonly SettingSpec[]): void {
  for (const spec of specs) {
    if (spec.flag === undefined) continue;
    const env = spec.env === undefined ? '' : `env ${spec.env}, `;
    if (spec.kind === 'boolean') {
      command.option(spec.flag, spec.env === undefined ? spec.description : `${spec.description} (env ${spec.env})`);
      if (spec.negatable) command.option(`--no-${spec.flag.slice(2)}`, `turn ${spec.flag} off`);
    } else if (spec.kind === 'trust-proxy') {
      // A bare `--trust-proxy` (the old on/off form) means one proxy.
      command.option(`${spec.flag} [value]`, `${spec.description} (${env}default ${spec.defaultText})`);
    } else if (spec.kind === 'cidrs') {
      // Repeatable: each occurrence adds ranges (also comma-separated).
      const add = (value: string, previous?: string) => (previous ? `${previous},${value}` : value);
      command.option(`${spec.flag} <value>`, `${spec.description} (${env}default ${spec.defaultText})`, add);
    } else {
      command.option(`${spec.flag} <value>`, `${spec.description} (${env}default ${spec.defaultText})`);
    }
  }
}

/**
 * The flags given, keyed by setting. Commander names a value after its flag (`--webhook-allow-cidr`
 * is `webhookAllowCidr`), not after the setting's key (`webhookAllowCidrs`): each value is read
 * under the name Commander gave that flag's option.
 */
type FlagValue = string | number | boolean | undefined;

export function settingFlagsOf<K extends string>(command: Command, specs: readonly SettingSpec<K>[]): Partial<Record<K, FlagValue>> {
  const values: Partial<Record<K, FlagValue>> = {};
  for (const spec of specs) {
    const option = spec.flag === undefined ? undefined : command.options.find((o) => o.long === spec.flag);
    if (option !== undefined) values[spec.key] = command.getOptionValue(option.attributeName()) as FlagValue;
  }
  return values;
}
