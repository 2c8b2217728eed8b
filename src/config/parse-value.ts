/**
 * One setting's text (a flag, a variable, or the default as written) as its value. A problem is
 * added to `problems`, named after where the text came from, and the value is then undefined.
 */
import { parseRate } from '../domain/rate-limit.js';
import { parseTrustProxy } from '../domain/trust-proxy.js';
import { allowListOf } from '../domain/webhook-url.js';
import { parseRoles } from '../workers/roles.js';
import { BARE_NUMBER_UNITS, formatDuration, parseDuration } from './durations.js';
import type { SettingSpec } from './setting-declaration.js';

export function parseValue(spec: SettingSpec, raw: string | number | boolean, source: string, problems: string[]): unknown {
  switch (spec.kind) {
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const text = String(raw).toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(text)) return true;
      if (['0', 'false', 'no', 'off'].includes(text)) return false;
      problems.push(`${source} must be true or false, got "${raw}"`);
      return undefined;
    }
    case 'integer': {
      const n = integerOf(raw);
      if (n === undefined || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        problems.push(`${source} must be an integer from ${spec.min} to ${spec.max}, got "${raw}"`);
        return undefined;
      }
      return n;
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (String(raw).trim() === '' || !Number.isFinite(n) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        problems.push(`${source} must be a number from ${spec.min} to ${spec.max}, got "${raw}"`);
        return undefined;
      }
      return n;
    }
    case 'duration':
      return spec.unit === undefined ? parseUnitDuration(spec, raw, source, problems) : parseDurationOrCount(spec, BARE_NUMBER_UNITS[spec.unit]!, raw, source, problems);
    case 'choice': {
      const text = String(raw).toLowerCase();
      const choices = spec.choices ?? [];
      if (!choices.includes(text)) {
        problems.push(`${source} must be one of ${choices.join(', ')}, got "${raw}"`);
        return undefined;
      }
      return text;
    }
    case 'trust-proxy': {
      const trust = parseTrustProxy(raw);
      if (trust === undefined) {
        problems.push(`${source} must be off, a number of proxies from 1 to 10, or comma-separated proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1), got "${raw}"`);
        return undefined;
      }
      return trust;
    }
    case 'role': {
      const roles = parseRoles(String(raw));
      if (roles === undefined) {
        problems.push(`${source} must be api, workers, gateway, writers or all (or a comma-separated list of them), got "${raw}"`);
        return undefined;
      }
      return roles;
    }
    case 'rate': {
      const rate = parseRate(String(raw));
      if (rate === undefined) {
        problems.push(`${source} must be a rate such as 20/1m, 5/30s or 1000/1h (requests per period), or 0 for no limit, got "${raw}"`);
        return undefined;
      }
      return rate;
    }
    case 'cidrs': {
      const list = String(raw).split(',').map((c) => c.trim()).filter((c) => c !== '');
      try {
        allowListOf(list);
      } catch (error) {
        problems.push(`${source}: ${(error as Error).message}`);
        return undefined;
      }
      return list;
    }
    case 'string': {
      const text = String(raw);
      if (text.trim() === '') {
        problems.push(`${source} must not be empty`);
        return undefined;
      }
      return text;
    }
  }
}

/** A whole number written as digits (a sign allowed); undefined otherwise. */
function integerOf(raw: string | number | boolean): number | undefined {
  const text = String(raw).trim();
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `2d`, `36h`, `90m`, `45s`, or `0`. */
function parseUnitDuration(spec: SettingSpec, raw: string | number | boolean, source: string, problems: string[]): number | undefined {
  const ms = parseDuration(String(raw));
  if (ms === undefined || (spec.min !== undefined && ms < spec.min) || (spec.max !== undefined && ms > spec.max)) {
    problems.push(`${source} must be a duration such as 2d, 36h, 90m, 45s or 0, from ${formatDuration(spec.min ?? 0)} to ${formatDuration(spec.max ?? 0)}, got "${raw}"`);
    return undefined;
  }
  return ms;
}

/**
 * A duration with a unit (`192h`, `8d`), or a bare whole number of the setting's unit (`192`
 * hours), the form these settings took before they took units. Text that is neither gets the
 * problem a bare number would, since that is the form the setting has always documented.
 */
function parseDurationOrCount(spec: SettingSpec, unitMs: number, raw: string | number | boolean, source: string, problems: string[]): number | undefined {
  const min = spec.min ?? 0;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  const count = integerOf(raw);
  const ms = count === undefined ? parseDuration(String(raw)) : count * unitMs;
  if (ms !== undefined && ms >= min && ms <= max) return ms;
  if (count !== undefined || ms === undefined) problems.push(`${source} must be an integer from ${min / unitMs} to ${max / unitMs}, got "${raw}"`);
  else problems.push(`${source} must be a duration from ${formatDuration(min)} to ${formatDuration(max)} (or a number of ${spec.unit}), got "${raw}"`);
  return undefined;
}
