/** /alert-rules: the company's alert rules, shared by every application of the company (docs/alerts.md). */
import type { Transport } from './transport.js';
import type { AlertRule, AlertRuleBody, AlertRulePreview, AlertRulePreviewBody, RequestOptions } from './types.js';

const path = (id: string) => `/alert-rules/${encodeURIComponent(id)}`;

export class AlertRules {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** Creates a rule; the answer has every default filled in. Not retried (it would create two). */
  async create(rule: AlertRuleBody, options: RequestOptions = {}): Promise<AlertRule> {
    return (await this.transport.json<AlertRule>({ method: 'POST', path: '/alert-rules', json: rule, retry: 'never', ...options })).data;
  }

  /** The company's rules, by name then id. */
  async list(options: RequestOptions = {}): Promise<AlertRule[]> {
    return (await this.transport.json<AlertRule[]>({ method: 'GET', path: '/alert-rules', retry: 'read', ...options })).data;
  }

  async get(id: string, options: RequestOptions = {}): Promise<AlertRule> {
    return (await this.transport.json<AlertRule>({ method: 'GET', path: path(id), retry: 'read', ...options })).data;
  }

  /**
   * Replaces every field (those left out take their defaults). Not retried: a repeat sent after
   * another application's change would undo it.
   */
  async replace(id: string, rule: AlertRuleBody, options: RequestOptions = {}): Promise<AlertRule> {
    return (await this.transport.json<AlertRule>({ method: 'PUT', path: path(id), json: rule, retry: 'never', ...options })).data;
  }

  /**
   * The alerts a rule (`rule`, not saved) or a saved one (`rule_id`) would have fired over the last
   * `days` (1 to 7) of the company's records. Writes nothing, so it is retried as a read.
   */
  async preview(body: AlertRulePreviewBody, options: RequestOptions = {}): Promise<AlertRulePreview> {
    return (await this.transport.json<AlertRulePreview>({ method: 'POST', path: '/alert-rules/preview', json: body, retry: 'read', ...options })).data;
  }

  /** Not retried: a retry after a lost answer would be told 404 for a rule it did delete. */
  async delete(id: string, options: RequestOptions = {}): Promise<void> {
    await this.transport.json<undefined>({ method: 'DELETE', path: path(id), retry: 'never', ...options });
  }
}
