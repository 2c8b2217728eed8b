import type { ComponentChildren } from 'preact';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { listOf, type Company } from '../operator-api.js';

/**
 * The company whose entries a screen lists (vehicles, applications): a service may hold many
 * fleets, a screen shows one. The first company until another is chosen.
 */
export function CompanyPicker(props: { chosen: string | undefined; onChoose(id: string): void; children(company: Company): ComponentChildren }) {
  const { t } = useI18n();
  const companies = useLoad(() => listOf<Company>('/companies'), []);
  if (companies.error && !companies.data) return <Problem error={companies.error} onRetry={companies.reload} />;
  if (!companies.data) return <p class="loading">{t('loading')}</p>;
  const company = companies.data.find((c) => c.id === props.chosen) ?? companies.data[0];
  if (!company) return <p data-ready="true">{t('opNoCompanies')} <a href="#companies">{t('opCompanies')}</a></p>;
  return (
    <>
      <label class="company-pick">{t('opCompany')}
        <select value={company.id} onChange={(e) => props.onChoose((e.currentTarget as HTMLSelectElement).value)}>
          {companies.data.map((c) => <option key={c.id} value={c.id}>{`${c.name} (${c.id})`}</option>)}
        </select>
      </label>
      {props.children(company)}
    </>
  );
}
