/**
 * Alert rules: the company's rules (name, kind, threshold with its unit, duration, vehicles,
 * enabled), an editor to create or change one, and delete after a confirmation.
 */
import { useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import type { MessageKey } from '../../i18n/en.js';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { sessionMay, type Session, type Vehicle } from '../../types.js';
import { THRESHOLD_UNITS, type AlertRule } from './alert-types.js';
import { RuleEditor } from './rule-editor.js';
import './alerts.css';

type Editing = { readonly rule: AlertRule | undefined } | undefined;

export function AlertRulesScreen({ session }: { session: Session }) {
  const mayWrite = sessionMay(session, 'alerts:write');
  const i18n = useI18n();
  const { t } = i18n;
  const rules = useLoad(() => apiCall<AlertRule[]>('GET', '/alert-rules'), []);
  const vehicles = useLoad(() => apiCall<Vehicle[]>('GET', '/vehicle'), []);
  const [editing, setEditing] = useState<Editing>(undefined);
  const [deleting, setDeleting] = useState<AlertRule | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);

  const remove = async (rule: AlertRule) => {
    setRefusal(undefined);
    try {
      await apiCall('DELETE', `/alert-rules/${rule.id}`);
      setMessage(t('ruleDeleted', { name: rule.name }));
      setDeleting(undefined);
      rules.reload();
    } catch (error) {
      setRefusal((error as Error).message);
    }
  };

  if (rules.error) return <Problem error={rules.error} onRetry={rules.reload} />;
  if (vehicles.error) return <Problem error={vehicles.error} onRetry={vehicles.reload} />;
  if (!rules.data || !vehicles.data) return <p class="loading">{t('loading')}</p>;
  const threshold = (r: AlertRule) => {
    const unit = THRESHOLD_UNITS[r.kind];
    return r.threshold === null || unit === null ? '—' : `${i18n.number(r.threshold, 2)} ${unit}`;
  };
  return (
    <section class="alert-rules" data-ready={rules.loading ? undefined : 'true'} aria-labelledby="rules-title">
      <h1 id="rules-title">{t('alertRules')}</h1>
      {message ? <p role="status">{message}</p> : null}
      {editing === undefined && mayWrite ? <p class="buttons"><button type="button" class="new-rule" onClick={() => { setMessage(undefined); setEditing({ rule: undefined }); }}>{t('newRule')}</button></p> : null}
      {editing !== undefined ? (
        <RuleEditor key={editing.rule?.id ?? 'new'} rule={editing.rule} vehicles={vehicles.data}
          onCancel={() => setEditing(undefined)}
          onSaved={(rule) => { setEditing(undefined); setMessage(t('ruleSaved', { name: rule.name })); rules.reload(); }} />
      ) : null}
      {rules.data.length === 0 ? <p role="status">{t('noRules')}</p> : (
        <table>
          <caption>{t('rulesTable')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('ruleName')}</th><th scope="col">{t('ruleKind')}</th><th scope="col" class="num">{t('ruleThreshold')}</th>
              <th scope="col" class="num">{t('ruleDuration')}</th><th scope="col">{t('ruleScope')}</th><th scope="col">{t('ruleEnabled')}</th><th scope="col">{t('ruleActions')}</th>
            </tr>
          </thead>
          <tbody>
            {rules.data.map((r) => (
              <tr key={r.id} data-rule-id={r.id} class={editing?.rule?.id === r.id ? 'chosen' : undefined}>
                <th scope="row">{r.name}</th>
                <td>{t(`rule_${r.kind}` as MessageKey)}</td>
                <td class="num">{threshold(r)}</td>
                <td class="num">{i18n.number(r.duration_s, 0)}</td>
                <td>{r.vins === null ? t('scopeAll') : t('scopeCount', { n: r.vins.length })}</td>
                <td>{r.enabled ? t('enabledYes') : t('enabledNo')}</td>
                <td class="buttons">
                  {mayWrite ? <>
                  <button type="button" aria-label={`${t('editRule')}: ${r.name}`} onClick={() => { setMessage(undefined); setEditing({ rule: r }); }}>{t('editRule')}</button>
                  <button type="button" class="danger" aria-label={`${t('deleteRule')}: ${r.name}`} onClick={() => { setRefusal(undefined); setDeleting(r); }}>{t('deleteRule')}</button>
                  </> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting ? (
        <div class="confirm" role="alertdialog" aria-labelledby="delete-question">
          <p id="delete-question">{t('deleteRuleConfirm', { name: deleting.name })}</p>
          {refusal !== undefined ? <p class="refused" role="alert">{t('ruleRefused', { detail: '' })}<span lang="en">{refusal}</span></p> : null}
          <p class="buttons">
            <button type="button" class="danger confirm-delete" onClick={() => { void remove(deleting); }}>{t('deleteRuleYes')}</button>
            <button type="button" onClick={() => setDeleting(undefined)}>{t('cancel')}</button>
          </p>
        </div>
      ) : null}
    </section>
  );
}
