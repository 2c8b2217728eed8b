/**
 * What a setting is: a flag and/or an environment variable, a kind its text is parsed as, a
 * default, a unit and a description. The configuration's type is derived from the declarations
 * (`ConfigOf`), so a setting is written once, as a row.
 */
import type { Rate } from '../domain/rate-limit.js';
import type { TrustProxy } from '../domain/trust-proxy.js';
import type { Roles } from '../workers/roles.js';

/** What each kind of setting parses to. */
interface KindValues {
  readonly string: string;
  readonly integer: number;
  readonly number: number;
  readonly boolean: boolean;
  readonly choice: string;
  /** Milliseconds. */
  readonly duration: number;
  /** Null: no limit (`0`). */
  readonly rate: Rate | null;
  readonly 'trust-proxy': TrustProxy;
  readonly role: Roles;
  readonly cidrs: readonly string[];
}

export type Kind = keyof KindValues;

export interface SettingDeclaration<K extends string = string> {
  readonly key: K;
  readonly flag?: string;
  readonly env?: string;
  readonly kind: Kind;
  readonly description: string;
  /**
   * The default as an operator would write it (durations and rates as text: `'5m'`, `'20/1m'`).
   * Absent when it depends on other settings or is "none": `defaultText` says so.
   */
  readonly default?: string | number | boolean;
  /** Only for settings without a fixed `default`; otherwise derived from it. */
  readonly defaultText?: string;
  /**
   * What a number counts. For a duration, the unit a bare number is read in (`seconds`, `hours`,
   * `days`); a duration without one takes a bare number only as `0`.
   */
  readonly unit?: string;
  /** Bounds, in the parsed value's terms (milliseconds for a duration). */
  readonly min?: number;
  readonly max?: number;
  /** The values a `choice` takes (read case-insensitively). */
  readonly choices?: readonly string[];
  /** Secrets are read from the environment only: flags show up in `ps`. */
  readonly secret?: boolean;
  /** A boolean that is on by default, with a `--no-…` flag to turn it off. */
  readonly negatable?: boolean;
  /** Without a `default`, still always set: loadConfig derives it from other settings (derived-settings.ts). */
  readonly derived?: true;
}

export interface SettingSpec<K extends string = string> extends SettingDeclaration<K> {
  /** The default as the docs and `--help` show it. */
  readonly defaultText: string;
}

type ValueOf<D extends SettingDeclaration> = D extends { readonly choices: readonly (infer C)[] } ? C : KindValues[D['kind']];

/** A setting with a default, or one derived from others, is always set; any other may be undefined. */
type SettingValue<D extends SettingDeclaration> = D extends { readonly default: unknown } | { readonly derived: true } ? ValueOf<D> : ValueOf<D> | undefined;

/** The configuration a list of declarations describes, keyed by `key`. */
export type ConfigOf<Rows extends readonly SettingDeclaration[]> = { readonly [D in Rows[number] as D['key']]: SettingValue<D> };

/** The declarations with their default text filled in, frozen. */
export function specsOf<K extends string>(rows: readonly SettingDeclaration<K>[]): readonly SettingSpec<K>[] {
  return Object.freeze(rows.map((row) => Object.freeze({ ...row, defaultText: defaultTextOf(row) })));
}

/** A fixed default as the docs show it: as written, booleans as on/off. */
function defaultTextOf(row: SettingDeclaration): string {
  if (row.defaultText !== undefined) return row.defaultText;
  if (row.default === undefined) throw new Error(`setting ${row.key} has neither a default nor a defaultText`);
  if (typeof row.default === 'boolean') return row.default ? 'on' : 'off';
  return String(row.default);
}
