import type { Choices } from './operator-api.js';
import type { Screen } from './use-hash-screen.js';
import { PlansScreen } from './plans/plans-screen.js';
import { OemsScreen } from './oems/oems-screen.js';
import { CompaniesScreen } from './companies/companies-screen.js';
import { VehiclesScreen } from './vehicles/vehicles-screen.js';
import { ApplicationsScreen } from './applications/applications-screen.js';
import { CompanyPicker } from './parts/company-picker.js';

/**
 * The screen the fragment names. Each is mounted afresh on every move, so a secret it showed
 * once is gone when the operator comes back.
 */
export function OperatorScreen(props: { screen: Screen; choices: Choices; company: string | undefined; onCompany(id: string): void }) {
  const { choices } = props;
  switch (props.screen) {
    case 'plans': return <PlansScreen key="plans" choices={choices} />;
    case 'oems': return <OemsScreen key="oems" choices={choices} />;
    case 'vehicles':
      return (
        <CompanyPicker key="vehicles" chosen={props.company} onChoose={props.onCompany}>
          {(company) => <VehiclesScreen key={company.id} company={company} choices={choices} />}
        </CompanyPicker>
      );
    case 'applications':
      return (
        <CompanyPicker key="applications" chosen={props.company} onChoose={props.onCompany}>
          {(company) => <ApplicationsScreen key={company.id} company={company} choices={choices} />}
        </CompanyPicker>
      );
    default: return <CompaniesScreen key="companies" />;
  }
}
