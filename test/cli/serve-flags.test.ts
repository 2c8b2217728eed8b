/**
 * Every `serve` flag reaches the configuration. Commander names an option's value after its flag
 * (`--webhook-allow-cidr` → `webhookAllowCidr`), SETTINGS after its key (`webhookAllowCidrs`): a
 * flag whose two names differ was parsed and then dropped. One case per entry of SETTINGS that
 * has a flag, so a setting added later is covered without anyone listing it here.
 */
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { SETTINGS, type ServiceConfig } from '../../src/config/settings.js';
import type { SettingSpec } from '../../src/config/setting-declaration.js';
import { registerServe } from '../../src/cli/serve-command.js';
import { BARE_NUMBER_UNITS } from '../../src/config/durations.js';

/** Strings with a format of their own; any other string setting takes any text. */
const FORMATTED_TEXT: Partial<Record<keyof ServiceConfig, string>> = {
  database: './flag-test.db',
  redisUrl: 'redis://redis.example:6379',
  ingestQueue: 'nats://nats.example:4222',
  consoleBasemap: 'https://tiles.example/{z}/{x}/{y}.png',
  oidcIssuer: 'https://id.example.com/realms/acme',
  oidcRedirectUri: 'https://telematics.example.com/console/oidc/callback',
};

/** A file that exists, for settings naming one (config.ts checks that it is there). */
const A_FILE = fileURLToPath(import.meta.url);
for (const key of ['ingestQueueCreds', 'ingestQueueTlsCa', 'ingestQueueTlsCert', 'ingestQueueTlsKey'] as const) FORMATTED_TEXT[key] = A_FILE;

const QUEUE = { TELEMATICS_INGEST_QUEUE: 'nats://nats.example:4222' };

/** Settings that are only valid together with others (config.ts checks them), set in the environment. */
const COMPANIONS: Partial<Record<keyof ServiceConfig, NodeJS.ProcessEnv>> = {
  teltonikaTlsPort: { TELEMATICS_TELTONIKA_PORT: '5027', TELEMATICS_TELTONIKA_TLS_CERT: 'c.pem', TELEMATICS_TELTONIKA_TLS_KEY: 'k.pem' },
  teltonikaTlsCert: { TELEMATICS_TELTONIKA_PORT: '5027', TELEMATICS_TELTONIKA_TLS_PORT: '5028', TELEMATICS_TELTONIKA_TLS_KEY: 'k.pem' },
  teltonikaTlsKey: { TELEMATICS_TELTONIKA_PORT: '5027', TELEMATICS_TELTONIKA_TLS_PORT: '5028', TELEMATICS_TELTONIKA_TLS_CERT: 'c.pem' },
  ingestQueueUser: { ...QUEUE, TELEMATICS_INGEST_QUEUE_PASSWORD: 'a-password' },
  ingestQueueCreds: QUEUE,
  ingestQueueTlsCa: QUEUE,
  ingestQueueTlsCert: { ...QUEUE, TELEMATICS_INGEST_QUEUE_TLS_KEY: A_FILE },
  ingestQueueTlsKey: { ...QUEUE, TELEMATICS_INGEST_QUEUE_TLS_CERT: A_FILE },
  oidcIssuer: { TELEMATICS_OIDC_CLIENT_ID: 'telematics', TELEMATICS_OIDC_COMPANY: 'acme' },
  oidcClientId: { TELEMATICS_OIDC_ISSUER: 'https://id.example.com', TELEMATICS_OIDC_COMPANY: 'acme' },
  oidcCompany: { TELEMATICS_OIDC_ISSUER: 'https://id.example.com', TELEMATICS_OIDC_CLIENT_ID: 'telematics' },
  oidcName: { TELEMATICS_OIDC_ISSUER: 'https://id.example.com', TELEMATICS_OIDC_CLIENT_ID: 'telematics', TELEMATICS_OIDC_COMPANY: 'acme' },
  oidcRedirectUri: { TELEMATICS_OIDC_ISSUER: 'https://id.example.com', TELEMATICS_OIDC_CLIENT_ID: 'telematics', TELEMATICS_OIDC_COMPANY: 'acme' },
};

/** A valid value of the setting's kind that is not its default: the command-line words and the same value as an environment variable would carry it. */
function valueOf(spec: SettingSpec<keyof ServiceConfig>): { argv: string[]; env: string } {
  const text = (value: string) => ({ argv: [spec.flag!, value], env: value });
  switch (spec.kind) {
    case 'boolean': return spec.negatable ? { argv: [`--no-${spec.flag!.slice(2)}`], env: 'false' } : { argv: [spec.flag!], env: 'true' };
    case 'integer': case 'number': return text(String(spec.max));
    case 'duration': return text(`${spec.max! / 1000}s`);
    case 'choice': return text(spec.choices!.find((c) => c !== spec.default)!);
    case 'rate': return text('5/30s');
    case 'trust-proxy': return text('2');
    case 'role': return text('api');
    case 'cidrs': return text('10.20.0.0/16');
    case 'string': return text(FORMATTED_TEXT[spec.key] ?? 'flag-test-value');
  }
}

/** `serve …argv` through the real registration, with the service replaced by a probe that keeps the configuration. */
async function configFromCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<ServiceConfig> {
  let parsed: ServiceConfig | undefined;
  const program = new Command('telematics').exitOverride();
  const saved = process.env;
  process.env = env;
  try {
    registerServe(program, async (config) => { parsed = config; });
    await program.parseAsync(['serve', ...argv], { from: 'user' });
  } finally {
    process.env = saved;
  }
  return parsed!;
}

const FLAGGED = SETTINGS.filter((spec) => spec.flag !== undefined);
const DEFAULTS = loadConfig({}, {});

describe('serve flags', () => {
  it.each(FLAGGED.map((spec) => [spec.flag!, spec] as const))('when %s is given, then its value reaches the configuration as the environment variable would', async (_flag, spec) => {
    const value = valueOf(spec);
    const companions = COMPANIONS[spec.key] ?? {};
    const fromFlag = await configFromCommandLine(value.argv, companions);
    expect(fromFlag[spec.key], `${value.argv.join(' ')} left ${spec.key} at its default`).not.toEqual(DEFAULTS[spec.key]);
    if (spec.env !== undefined) expect(fromFlag[spec.key]).toEqual(loadConfig({}, { ...companions, [spec.env]: value.env })[spec.key]);
  });

  const COUNTED = FLAGGED.filter((spec) => spec.kind === 'duration' && spec.unit !== undefined);

  it('when a duration setting documents a unit, then it is one of the four that took a number before durations', () => {
    expect(COUNTED.map((spec) => spec.flag)).toEqual(['--command-timeout', '--telemetry-retention', '--event-retention', '--trip-retention']);
  });

  it.each(COUNTED.map((spec) => [spec.flag!, spec] as const))('when %s is given a bare number, then it reaches the configuration in its documented unit, as from the environment', async (_flag, spec) => {
    const count = String(spec.max! / BARE_NUMBER_UNITS[spec.unit!]!);
    const fromFlag = await configFromCommandLine([spec.flag!, count], {});
    expect(fromFlag[spec.key]).toBe(spec.max);
    expect(loadConfig({}, { [spec.env!]: count })[spec.key]).toBe(spec.max);
  });
});
