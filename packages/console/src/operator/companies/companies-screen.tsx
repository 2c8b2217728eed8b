/** Companies: each on a plan; an id given once, a name and plan that may change. */
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { listOf, operatorCall, segment, type Company, type Plan } from '../operator-api.js';
import { EntryForm } from '../parts/entry-form.js';
import { SelectField } from '../parts/select-field.js';
import { useEntries } from '../parts/use-entries.js';

const textOf = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? '').trim();

function CompanyFields(props: { plans: readonly Plan[]; company?: Company }) {
  const { t } = useI18n();
  return (
    <>
      <label>{t('opName')}<input name="name" required maxLength={128} defaultValue={props.company?.name ?? ''} /></label>
      <SelectField label={t('opPlan')} name="plan" values={props.plans.map((p) => p.name)} initial={props.company?.plan} />
    </>
  );
}

export function CompaniesScreen() {
  const { t } = useI18n();
  const companies = useLoad(() => listOf<Company>('/companies'), []);
  const plans = useLoad(() => listOf<Plan>('/plans'), []);
  const entries = useEntries<Company>(companies.reload);
  const { editing } = entries;

  const failed = companies.error ?? plans.error;
  if (failed && !(companies.data && plans.data)) return <Problem error={failed} onRetry={() => { companies.reload(); plans.reload(); }} />;
  if (!companies.data || !plans.data) return <p class="loading">{t('loading')}</p>;
  const add = (form: HTMLFormElement) => {
    const id = textOf(form, 'id');
    return entries.submitAdd(id, async () => { await operatorCall('POST', '/companies', { id, name: textOf(form, 'name'), plan: textOf(form, 'plan') }); });
  };
  const save = (company: Company) => (form: HTMLFormElement) => entries.submitEdit(company.id, async () => {
    await operatorCall('PATCH', `/companies/${segment(company.id)}`, { name: textOf(form, 'name'), plan: textOf(form, 'plan') });
  });
  return (
    <div data-ready={companies.loading || plans.loading ? undefined : 'true'}>
      <p class="muted">{t('opCompaniesHelp')}</p>
      {entries.saved ? <p class="saved" role="status">{t('opSaved', { name: entries.saved })}</p> : null}
      {companies.data.length === 0 ? <p>{t('opNothingYet')}</p> : (
        <div class="list">
          <table>
            <caption>{t('opCompaniesTable')}</caption>
            <thead><tr><th scope="col">{t('opCompanyId')}</th><th scope="col">{t('opName')}</th><th scope="col">{t('opPlan')}</th><th scope="col">{t('opActions')}</th></tr></thead>
            <tbody>
              {companies.data.map((c) => (
                <tr key={c.id} data-id={c.id}>
                  <th scope="row">{c.id}</th>
                  <td>{c.name}</td>
                  <td>{c.plan}</td>
                  <td><button type="button" class="secondary" aria-label={`${t('opEdit')}: ${c.id}`} onClick={() => entries.setEditing(c)}>{t('opEdit')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing ? (
        <EntryForm key={editing.id} id="edit-company" title={t('opEditCompany', { id: editing.id })} submit={t('opSave')} busy={entries.edit.busy} problem={entries.edit.problem}
          onSubmit={save(editing)} onCancel={() => entries.setEditing(undefined)}>
          <CompanyFields plans={plans.data} company={editing} />
        </EntryForm>
      ) : null}
      {plans.data.length === 0 ? <p>{t('opNeedPlan')} <a href="#plans">{t('opPlans')}</a></p> : (
        <EntryForm key={entries.addRound} focus={entries.addRound > 0} id="add-company" title={t('opAddCompany')} submit={t('opAdd')} busy={entries.add.busy} problem={entries.add.problem} onSubmit={add}>
          <label>{t('opCompanyId')}<input name="id" required maxLength={64} spellcheck={false} aria-describedby="add-company-id-help" /></label>
          <p id="add-company-id-help" class="help">{t('opIdentifierHelp')}</p>
          <CompanyFields plans={plans.data} />
        </EntryForm>
      )}
    </div>
  );
}
