import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AlertRule, AlertRuleParams, AlertRuleRequestShape } from '@telematics/contract';
import { previewAlertRule } from '../alerts/preview-alert-rule.js';
import { formatIsoWithOffset } from '../domain/time.js';
import {
  createAlertRule, listCompanyAlertRules, readAlertRule, removeAlertRule, replaceCompanyAlertRule, type AlertRuleDeps,
} from '../alerts/manage-alert-rules.js';
import { principalOf } from './authenticate-hook.js';
import { callerActor } from '../audit/record-audit.js';
import { previewAnswerSchema } from './preview-answer-schema.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';

/** Any JSON: the rule's own checks answer every problem with a text naming the field. */
const RuleBody = Type.Unsafe<unknown>({ description: 'name, kind, and the fields of that kind (docs/alerts.md)' });
const ONE_RULE = [...AUTH_ERRORS, ...PATH_ERRORS, 'alertRuleNotFound'] as const;
const shownBody = documentedAs({ body: AlertRuleRequestShape });
const tags = ['alerts'];
const PreviewBody = Type.Object({
  rule: Type.Optional(AlertRuleRequestShape),
  rule_id: Type.Optional(Type.String({ description: 'A saved rule instead of `rule`' })),
  vins: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 1000, description: "Only these of the company's vehicles (within the rule's own); all of them (up to 200) when absent" })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: 'How far back, default 7' })),
});
const PreviewAnswer = previewAnswerSchema('rule_id', 'records');

/**
 * POST and GET /alert-rules, GET, PUT and DELETE /alert-rules/{id}: the rules of the token's
 * company (every application of it shares them). Another company's id reads as 404.
 */
export function alertRuleRoutes(deps: AlertRuleDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const company = (request: Parameters<typeof principalOf>[0]) => principalOf(request).companyId;
    const actorOf = (request: Parameters<typeof principalOf>[0]) => callerActor(principalOf(request));

    app.post('/alert-rules', {
      config: { swaggerTransform: shownBody },
      schema: {
        operationId: 'createAlertRule', summary: 'Create an alert rule',
        description: 'A rule over the company\'s vehicles\' records that fires `alert.<kind>` events: once per episode of its condition, after its duration, with a cooldown, inside its schedule. Answers the rule with every default filled in. See docs/alerts.md.',
        tags, security: bearerSecurity, body: RuleBody,
        response: { 201: AlertRule, ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'alertRuleInvalid', 'tooManyAlertRules') },
      },
    }, async (request, reply) => reply.code(201).send(await createAlertRule(deps, company(request), request.body, actorOf(request))));

    app.get('/alert-rules', {
      schema: {
        operationId: 'listAlertRules', summary: "List the company's alert rules", description: 'Every rule of the token\'s company, by name then id.',
        tags, security: bearerSecurity, response: { 200: Type.Array(AlertRule), ...errorResponses(AUTH_ERRORS) },
      },
    }, async (request) => listCompanyAlertRules(deps, company(request)));

    app.get('/alert-rules/:id', {
      schema: {
        operationId: 'getAlertRule', summary: 'Read an alert rule', description: "One of the company's rules, with every default filled in. Another company's id reads as 404.", tags, security: bearerSecurity, params: AlertRuleParams,
        response: { 200: AlertRule, ...errorResponses(ONE_RULE) },
      },
    }, async (request) => readAlertRule(deps, company(request), request.params.id));

    app.put('/alert-rules/:id', {
      config: { swaggerTransform: shownBody },
      schema: {
        operationId: 'replaceAlertRule', summary: 'Replace an alert rule',
        description: 'The same body as POST: every field is replaced, and those left out take their defaults. The id and `created` stay.',
        tags, security: bearerSecurity, params: AlertRuleParams, body: RuleBody,
        response: { 200: AlertRule, ...errorResponses(JSON_BODY_ERRORS, ONE_RULE, 'alertRuleInvalid') },
      },
    }, async (request) => replaceCompanyAlertRule(deps, company(request), request.params.id, request.body, actorOf(request)));

    app.post('/alert-rules/preview', {
      config: { swaggerTransform: documentedAs({ body: PreviewBody }) },
      schema: {
        operationId: 'previewAlertRule', summary: 'Try an alert rule on recorded data',
        description: 'The alerts a rule would have fired over the company\'s records of the last `days` (1 to 7, default 7), judged by the same code as the live evaluator, each vehicle from a quiet state (no_data from the gaps in the records): a rule not yet saved (`rule`, the body of POST /alert-rules; its events have `rule_id` null), or a saved one (`rule_id`). Nothing is written. At most 200 vehicles and 2,000,000 records: past either, `truncated`.',
        tags, security: bearerSecurity, body: RuleBody,
        response: { 200: PreviewAnswer, ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'alertRuleInvalid', 'alertRuleNotFound') },
      },
    }, async (request) => {
      const preview = await previewAlertRule(deps, company(request), request.body);
      return { ...preview, from: formatIsoWithOffset(preview.from), to: formatIsoWithOffset(preview.to) };
    });

    app.delete('/alert-rules/:id', {
      schema: {
        operationId: 'deleteAlertRule', summary: 'Delete an alert rule', description: 'It fires nothing more; the events it fired stay.',
        tags, security: bearerSecurity, params: AlertRuleParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(ONE_RULE) },
      },
    }, async (request, reply) => {
      await removeAlertRule(deps, company(request), request.params.id, actorOf(request));
      return reply.code(204).send(null);
    });
  };
}
