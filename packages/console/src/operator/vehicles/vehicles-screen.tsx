/** One company's vehicles and their trackers: add one, change any field but its VIN. */
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { listOf, operatorCall, segment, type Choices, type Company, type Oem, type Vehicle } from '../operator-api.js';
import { choiceLabel } from '../parts/choice-label.js';
import { EntryForm } from '../parts/entry-form.js';
import { useEntries } from '../parts/use-entries.js';
import { VehicleFields, vehicleFieldsOf } from './vehicle-fields.js';

export function VehiclesScreen({ company, choices }: { company: Company; choices: Choices }) {
  const i18n = useI18n();
  const { t } = i18n;
  const vehicles = useLoad(() => listOf<Vehicle>(`/vehicles?company=${segment(company.id)}`), [company.id]);
  const oems = useLoad(() => listOf<Oem>('/oems'), []);
  const entries = useEntries<Vehicle>(vehicles.reload);
  const { editing } = entries;

  const failed = vehicles.error ?? oems.error;
  if (failed && !(vehicles.data && oems.data)) return <Problem error={failed} onRetry={() => { vehicles.reload(); oems.reload(); }} />;
  if (!vehicles.data || !oems.data) return <p class="loading">{t('loading')}</p>;
  const add = (form: HTMLFormElement) => {
    const vin = String(new FormData(form).get('vin') ?? '').trim().toUpperCase();
    return entries.submitAdd(vin, async () => { await operatorCall('POST', '/vehicles', { company: company.id, vin, ...vehicleFieldsOf(form, false) }); });
  };
  const save = (vehicle: Vehicle) => (form: HTMLFormElement) => entries.submitEdit(vehicle.vin, async () => {
    await operatorCall('PATCH', `/vehicles/${segment(vehicle.vin)}`, vehicleFieldsOf(form, true));
  });
  const names = { company: company.name };
  return (
    <div data-ready={vehicles.loading || oems.loading ? undefined : 'true'}>
      <p class="muted">{t('opVehiclesHelp')}</p>
      {entries.saved ? <p class="saved" role="status">{t('opSaved', { name: entries.saved })}</p> : null}
      {vehicles.data.length === 0 ? <p>{t('opNothingYet')}</p> : (
        <div class="list">
          <table>
            <caption>{t('opVehiclesTable', names)}</caption>
            <thead>
              <tr>
                <th scope="col">{t('vin')}</th><th scope="col">{t('plate')}</th><th scope="col">{t('opOem')}</th><th scope="col">{t('model')}</th>
                <th scope="col">{t('opYear')}</th><th scope="col">{t('opStatus')}</th><th scope="col">{t('opOwnership')}</th>
                <th scope="col">{t('opFuelCapacityColumn')}</th><th scope="col">{t('opTracker')}</th><th scope="col">{t('opRegistered')}</th><th scope="col">{t('opActions')}</th>
              </tr>
            </thead>
            <tbody>
              {vehicles.data.map((v) => (
                <tr key={v.vin} data-vin={v.vin}>
                  <th scope="row">{v.vin}</th>
                  <td>{v.plate}</td>
                  <td>{v.oem}</td>
                  <td>{v.model}</td>
                  <td class="num">{v.year}</td>
                  <td>{choiceLabel(t, 'status', v.status)}</td>
                  <td>{choiceLabel(t, 'ownership', v.ownership)}</td>
                  <td class="num">{v.fuel_capacity === null ? '—' : i18n.number(v.fuel_capacity)}</td>
                  <td data-tracker={v.device ? `${v.device.protocol}:${v.device.id}` : ''}>{v.device ? `${v.device.protocol} ${v.device.id}` : '—'}</td>
                  <td>{i18n.time(v.created_at.slice(0, 19))}</td>
                  <td><button type="button" class="secondary" aria-label={`${t('opEdit')}: ${v.vin}`} onClick={() => entries.setEditing(v)}>{t('opEdit')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing ? (
        <EntryForm key={editing.vin} id="edit-vehicle" title={t('opEditVehicle', { vin: editing.vin })} submit={t('opSave')} busy={entries.edit.busy} problem={entries.edit.problem}
          onSubmit={save(editing)} onCancel={() => entries.setEditing(undefined)}>
          <VehicleFields id="edit-vehicle" choices={choices} oems={oems.data} vehicle={editing} />
        </EntryForm>
      ) : null}
      {oems.data.length === 0 ? <p>{t('opNeedOem')} <a href="#oems">{t('opOems')}</a></p> : (
        <EntryForm key={entries.addRound} focus={entries.addRound > 0} id="add-vehicle" title={t('opAddVehicle', names)} submit={t('opAdd')}
          busy={entries.add.busy} problem={entries.add.problem} onSubmit={add}>
          <label>{t('vin')}<input name="vin" required minLength={17} maxLength={17} spellcheck={false} autocapitalize="characters" aria-describedby="add-vehicle-vin-help" /></label>
          <p id="add-vehicle-vin-help" class="help">{t('opVinHelp')}</p>
          <VehicleFields id="add-vehicle" choices={choices} oems={oems.data} />
        </EntryForm>
      )}
    </div>
  );
}
