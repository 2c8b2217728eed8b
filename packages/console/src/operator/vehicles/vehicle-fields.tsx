import { useI18n } from '../../i18n/i18n.js';
import type { Choices, Oem, Vehicle } from '../operator-api.js';
import { choiceLabel } from '../parts/choice-label.js';
import { SelectField } from '../parts/select-field.js';
import { deviceOf, TrackerField } from './tracker-field.js';

/** What a vehicle's add and edit forms share: everything but its company and VIN. */
export function VehicleFields(props: { id: string; choices: Choices; oems: readonly Oem[]; vehicle?: Vehicle }) {
  const { t } = useI18n();
  const { choices, vehicle } = props;
  return (
    <>
      <label>{t('plate')}<input name="plate" required maxLength={16} spellcheck={false} defaultValue={vehicle?.plate ?? ''} /></label>
      <SelectField label={t('opOem')} name="oem" values={props.oems.map((o) => o.name)} initial={vehicle?.oem}
        text={(name) => `${name} (${props.oems.find((o) => o.name === name)?.connector ?? ''})`} />
      <label>{t('model')}<input name="model" required maxLength={64} defaultValue={vehicle?.model ?? ''} /></label>
      <label>{t('opYear')}<input name="year" type="number" required step={1} defaultValue={String(vehicle?.year ?? new Date().getFullYear())} /></label>
      <SelectField label={t('opStatus')} name="status" values={choices.statuses} initial={vehicle?.status} text={(v) => choiceLabel(t, 'status', v)} />
      <SelectField label={t('opOwnership')} name="ownership" values={choices.ownership} initial={vehicle?.ownership} text={(v) => choiceLabel(t, 'ownership', v)} />
      <label>{t('opFuelCapacity')}
        <input name="fuel_capacity" type="number" step="any" defaultValue={vehicle?.fuel_capacity === null || vehicle === undefined ? '' : String(vehicle.fuel_capacity)} />
      </label>
      <SelectField label={t('opSim')} name="sim" values={choices.sim_profiles} initial={vehicle?.sim?.profile ?? ''} empty={t('opSimNone')}
        text={(v) => choiceLabel(t, 'sim', v)} />
      <TrackerField id={props.id} choices={choices} device={vehicle?.device ?? null} />
    </>
  );
}

/**
 * The fields as the API takes them. No fuel capacity and no tracker are null; no simulation is
 * left out of a new vehicle and null on a change (which stops simulating it).
 */
export function vehicleFieldsOf(form: HTMLFormElement, change: boolean): Record<string, unknown> {
  const fields = new FormData(form);
  const text = (name: string) => String(fields.get(name) ?? '').trim();
  const fuel = text('fuel_capacity');
  const sim = text('sim');
  return {
    plate: text('plate'), oem: text('oem'), model: text('model'), year: Number(text('year')), status: text('status'), ownership: text('ownership'),
    fuel_capacity: fuel === '' ? null : Number(fuel),
    ...(sim !== '' ? { sim: { profile: sim } } : change ? { sim: null } : {}),
    device: deviceOf(fields),
  };
}
