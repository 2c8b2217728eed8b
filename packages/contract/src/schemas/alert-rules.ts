/**
 * /alert-rules (D13): the rules a company sets over its vehicles' records. The service validates
 * a body with its own checks, so that every problem is answered with a text naming the field
 * (`AlertRuleRequestShape` is what the OpenAPI document shows); answers have every default filled in.
 */
import { Type, type TSchema } from 'typebox';

export const ALERT_RULE_KINDS = ['overspeed', 'idling', 'no_data', 'low_fuel', 'low_battery', 'after_hours'] as const;
export const SCHEDULE_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const nullable = (schema: TSchema, description: string) => Type.Union([schema, Type.Null()], { description });
const TIME_ZONE = 'An IANA time zone name (Intl spells it), such as America/Sao_Paulo';

const WeeklyWindow = Type.Object({
  days: Type.Array(Type.Enum([...SCHEDULE_DAYS]), { minItems: 1 }),
  from: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM local time, included' }),
  to: Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description: 'HH:MM local time, excluded; after from (24:00 for the end of the day)' }),
});

const scheduleOf = (zone: TSchema) => Type.Object({
  time_zone: zone,
  weekly: Type.Array(WeeklyWindow, { minItems: 1, maxItems: 50 }),
});

const RULE_FIELDS = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  kind: Type.Enum([...ALERT_RULE_KINDS], { description: 'What the rule watches; docs/alerts.md has each condition' }),
};

export const AlertRuleRequestShape = Type.Object({
  ...RULE_FIELDS,
  vins: Type.Optional(nullable(Type.Array(Type.String(), { minItems: 1, maxItems: 10_000 }), "The company's vehicles it watches; absent or null: every one, present and future")),
  threshold: Type.Optional(nullable(Type.Number(), 'overspeed: km/h (1 to 400); low_fuel: % (1 to 100); low_battery: V (0.1 to 60); none for the other kinds')),
  duration_s: Type.Optional(Type.Integer({ description: 'How long the condition must hold: overspeed 0 to 3600 (default 0), idling 60 to 86400 and no_data 60 to 604800 (required), low_fuel and low_battery 0 to 86400 (default 0), after_hours 0 to 3600 (default 0)' })),
  schedule: Type.Optional(nullable(scheduleOf(Type.Optional(Type.String({ description: `${TIME_ZONE}; default America/Sao_Paulo` }))), 'after_hours: required, the working hours. Other kinds: the only windows the rule fires in')),
  cooldown_s: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, description: 'After an event, none for the same vehicle and rule before this has passed; default 600' })),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true; a disabled rule fires nothing' })),
});

export const AlertRule = Type.Object({
  id: Type.String({ format: 'uuid' }),
  ...RULE_FIELDS,
  vins: nullable(Type.Array(Type.String()), 'null: every vehicle of the company'),
  threshold: nullable(Type.Number(), 'km/h, % or V by kind; null for idling, no_data and after_hours'),
  duration_s: Type.Integer(),
  schedule: nullable(scheduleOf(Type.String({ description: TIME_ZONE })), 'null: none'),
  cooldown_s: Type.Integer(),
  enabled: Type.Boolean(),
  created: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  updated: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00: the last PUT, or the creation' }),
});

export const AlertRuleParams = Type.Object({ id: Type.String({ description: 'The rule id' }) });
