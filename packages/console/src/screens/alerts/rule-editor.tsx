/**
 * Create or edit one alert rule: name, kind, the threshold in the kind's unit, duration, the
 * vehicles (all, or chosen from the company's), a weekly schedule, cooldown, enabled. "Try on
 * last 7 days" posts the unsaved rule to the preview and shows what it would have fired before
 * anything is saved. A refusal shows the service's 400 detail as sent.
 */
import { useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import type { MessageKey } from '../../i18n/en.js';
import { useI18n } from '../../i18n/i18n.js';
import type { Vehicle } from '../../types.js';
import { RULE_KINDS, THRESHOLD_UNITS, type AlertRule, type RulePreview, type RuleKind } from './alert-types.js';
import { bodyOf, emptyForm, formOf, hasSchedule, type RuleForm } from './rule-form.js';
import { RulePreviewResult } from './rule-preview.js';
import { ScheduleEditor } from './schedule-editor.js';

const PREVIEW_DAYS = 7;

export function RuleEditor(props: { rule: AlertRule | undefined; vehicles: readonly Vehicle[]; onSaved(rule: AlertRule): void; onCancel(): void }) {
  const { t } = useI18n();
  const [form, setForm] = useState<RuleForm>(() => (props.rule ? formOf(props.rule) : emptyForm()));
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState<'saving' | 'trying' | undefined>(undefined);
  const [preview, setPreview] = useState<RulePreview | undefined>(undefined);
  const set = (next: Partial<RuleForm>) => { setForm((f) => ({ ...f, ...next })); setPreview(undefined); };
  const text = (field: 'name' | 'threshold' | 'duration_s' | 'cooldown_s') => ({
    name: field, value: form[field], onInput: (e: Event) => set({ [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  const unit = THRESHOLD_UNITS[form.kind];
  const plates = new Map(props.vehicles.map((v) => [v.vin, v.plate]));

  const run = async (what: 'saving' | 'trying', work: () => Promise<void>) => {
    setBusy(what);
    setRefusal(undefined);
    try {
      await work();
    } catch (error) {
      setRefusal((error as Error).message);
    } finally {
      setBusy(undefined);
    }
  };
  const tryRule = () => run('trying', async () => {
    setPreview(await apiCall<RulePreview>('POST', '/alert-rules/preview', { rule: bodyOf(form), days: PREVIEW_DAYS }));
  });
  const save = (e: Event) => {
    e.preventDefault();
    void run('saving', async () => {
      const saved = props.rule
        ? await apiCall<AlertRule>('PUT', `/alert-rules/${props.rule.id}`, bodyOf(form))
        : await apiCall<AlertRule>('POST', '/alert-rules', bodyOf(form));
      props.onSaved(saved);
    });
  };

  return (
    <form class="rule-editor" onSubmit={save} aria-labelledby="rule-editor-title" noValidate>
      <h2 id="rule-editor-title">{props.rule ? t('ruleEditorEdit', { name: props.rule.name }) : t('ruleEditorNew')}</h2>
      <label>{t('ruleName')}<input type="text" maxLength={100} required {...text('name')} /></label>
      <label>{t('ruleKind')}
        <select name="kind" aria-label={t('ruleKind')} value={form.kind} onChange={(e) => set({ kind: (e.currentTarget as HTMLSelectElement).value as RuleKind })}>
          {RULE_KINDS.map((k) => <option key={k} value={k}>{t(`rule_${k}` as MessageKey)}</option>)}
        </select>
      </label>
      {unit === null
        ? <p class="help">{t('thresholdNone')}</p>
        : <label>{t('thresholdWithUnit', { unit })}<input type="number" step="any" inputMode="decimal" {...text('threshold')} /></label>}
      <label>{t('ruleDuration')}<input type="number" step="1" min="0" inputMode="numeric" aria-describedby="duration-help" {...text('duration_s')} /></label>
      <p class="help" id="duration-help">{t('durationHelp')}</p>
      <label>{t('ruleCooldown')}<input type="number" step="1" min="0" inputMode="numeric" aria-describedby="cooldown-help" {...text('cooldown_s')} /></label>
      <p class="help" id="cooldown-help">{t('cooldownHelp')}</p>

      <fieldset>
        <legend>{t('ruleScope')}</legend>
        <label class="inline"><input type="radio" name="scope" value="all" checked={form.scope === 'all'} onChange={() => set({ scope: 'all' })} />{t('scopeAll')}</label>
        <label class="inline"><input type="radio" name="scope" value="chosen" checked={form.scope === 'chosen'} onChange={() => set({ scope: 'chosen' })} />{t('scopeChosen')}</label>
        {form.scope === 'chosen' ? (
          <div class="vehicles" role="group" aria-label={t('chooseVehicles')}>
            {props.vehicles.map((v) => (
              <label class="inline" key={v.vin}>
                <input type="checkbox" name="vins" value={v.vin} checked={form.vins.includes(v.vin)}
                  onChange={(e) => set({ vins: (e.currentTarget as HTMLInputElement).checked ? [...form.vins, v.vin] : form.vins.filter((x) => x !== v.vin) })} />
                {v.plate ? `${v.plate} · ${v.vin}` : v.vin}
              </label>
            ))}
          </div>
        ) : null}
      </fieldset>

      <fieldset>
        <legend>{t('ruleSchedule')}</legend>
        {form.kind === 'after_hours'
          ? <p class="help">{t('scheduleRequired')}</p>
          : <label class="inline"><input type="checkbox" name="use_schedule" checked={form.useSchedule} onChange={(e) => set({ useSchedule: (e.currentTarget as HTMLInputElement).checked })} />{t('scheduleUse')}</label>}
        {hasSchedule(form)
          ? <ScheduleEditor timeZone={form.timeZone} windows={form.windows} onZone={(timeZone) => set({ timeZone })} onWindows={(windows) => set({ windows })} />
          : <p class="help">{t('scheduleNone')}</p>}
      </fieldset>

      <label class="inline"><input type="checkbox" name="enabled" checked={form.enabled} onChange={(e) => set({ enabled: (e.currentTarget as HTMLInputElement).checked })} />{t('ruleEnabled')}</label>

      {refusal !== undefined ? <p class="refused" role="alert">{t('ruleRefused', { detail: '' })}<span lang="en" class="detail">{refusal}</span></p> : null}
      <p class="buttons">
        <button type="button" class="try" disabled={busy !== undefined} onClick={() => { void tryRule(); }}>{busy === 'trying' ? t('tryingRule') : t('tryRule')}</button>
        <button type="submit" class="save" disabled={busy !== undefined}>{busy === 'saving' ? t('savingRule') : t('saveRule')}</button>
        <button type="button" onClick={props.onCancel}>{t('cancel')}</button>
      </p>
      {preview ? <RulePreviewResult preview={preview} plates={plates} /> : null}
    </form>
  );
}
