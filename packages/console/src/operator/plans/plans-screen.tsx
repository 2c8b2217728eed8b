/** Plans: which datapoints and commands the companies on each may use. */
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { listOf, operatorCall, segment, type Choices, type Plan } from '../operator-api.js';
import { EntryForm } from '../parts/entry-form.js';
import { NameSetField, nameSetOf, nameSetText } from '../parts/name-set-field.js';
import { useEntries } from '../parts/use-entries.js';

function CapabilityFields(props: { choices: Choices; plan?: Plan }) {
  const { t } = useI18n();
  return (
    <>
      <NameSetField name="datapoints" legend={t('opDatapoints')} names={props.choices.datapoints} initial={props.plan?.datapoints ?? '*'} />
      <NameSetField name="commands" legend={t('opCommands')} names={props.choices.commands} initial={props.plan?.commands ?? '*'} />
    </>
  );
}

const capabilitiesOf = (form: HTMLFormElement) => ({ datapoints: nameSetOf(form, 'datapoints'), commands: nameSetOf(form, 'commands') });

export function PlansScreen({ choices }: { choices: Choices }) {
  const { t } = useI18n();
  const plans = useLoad(() => listOf<Plan>('/plans'), []);
  const entries = useEntries<Plan>(plans.reload);
  const { editing } = entries;

  if (plans.error && !plans.data) return <Problem error={plans.error} onRetry={plans.reload} />;
  if (!plans.data) return <p class="loading">{t('loading')}</p>;
  const add = (form: HTMLFormElement) => {
    const name = String(new FormData(form).get('name') ?? '').trim();
    return entries.submitAdd(name, async () => { await operatorCall('POST', '/plans', { name, ...capabilitiesOf(form) }); });
  };
  const save = (plan: Plan) => (form: HTMLFormElement) => entries.submitEdit(plan.name, async () => {
    await operatorCall('PATCH', `/plans/${segment(plan.name)}`, capabilitiesOf(form));
  });
  return (
    <div data-ready={plans.loading ? undefined : 'true'}>
      <p class="muted">{t('opPlansHelp')}</p>
      {entries.saved ? <p class="saved" role="status">{t('opSaved', { name: entries.saved })}</p> : null}
      {plans.data.length === 0 ? <p>{t('opNothingYet')}</p> : (
        <div class="list">
          <table>
            <caption>{t('opPlansTable')}</caption>
            <thead><tr><th scope="col">{t('opName')}</th><th scope="col">{t('opDatapoints')}</th><th scope="col">{t('opCommands')}</th><th scope="col">{t('opActions')}</th></tr></thead>
            <tbody>
              {plans.data.map((p) => (
                <tr key={p.name} data-name={p.name}>
                  <th scope="row">{p.name}</th>
                  <td class="names">{nameSetText(p.datapoints, t('opEvery'))}</td>
                  <td class="names">{nameSetText(p.commands, t('opEvery'))}</td>
                  <td><button type="button" class="secondary" aria-label={`${t('opEdit')}: ${p.name}`} onClick={() => entries.setEditing(p)}>{t('opEdit')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing ? (
        <EntryForm key={editing.name} id="edit-plan" title={t('opEditPlan', { name: editing.name })} submit={t('opSave')} busy={entries.edit.busy} problem={entries.edit.problem}
          onSubmit={save(editing)} onCancel={() => entries.setEditing(undefined)}>
          <CapabilityFields choices={choices} plan={editing} />
        </EntryForm>
      ) : null}
      <EntryForm key={entries.addRound} focus={entries.addRound > 0} id="add-plan" title={t('opAddPlan')} submit={t('opAdd')} busy={entries.add.busy} problem={entries.add.problem} onSubmit={add}>
        <label>{t('opName')}<input name="name" required maxLength={64} spellcheck={false} aria-describedby="add-plan-name-help" /></label>
        <p id="add-plan-name-help" class="help">{t('opIdentifierHelp')}</p>
        <CapabilityFields choices={choices} />
      </EntryForm>
    </div>
  );
}
