import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { choiceLabel } from '../parts/choice-label.js';
import type { Choices, Vehicle } from '../operator-api.js';
import { SelectField } from '../parts/select-field.js';

/** A vehicle's tracker: a protocol the service speaks and the device's id, checked by that protocol's rule (shown beside it). */
export function TrackerField(props: { id: string; choices: Choices; device: Vehicle['device'] }) {
  const { t } = useI18n();
  const [protocol, setProtocol] = useState(props.device?.protocol ?? '');
  const rule = props.choices.device_protocols.find((p) => p.name === protocol);
  return (
    <fieldset class="tracker">
      <legend>{t('opTracker')}</legend>
      <SelectField label={t('opTrackerProtocol')} name="device_protocol" values={props.choices.device_protocols.map((p) => p.name)}
        initial={props.device?.protocol ?? ''} empty={t('opTrackerNone')} onChange={setProtocol} />
      {rule ? (
        <>
          <label>{t('opTrackerId')}
            <input name="device_id" required maxLength={64} spellcheck={false} inputMode={/^\d+$/.test(rule.id_example) ? 'numeric' : undefined}
              defaultValue={props.device?.protocol === rule.name ? props.device.id : ''} aria-describedby={`${props.id}-tracker-rule`} />
          </label>
          <p id={`${props.id}-tracker-rule`} class="help">{t('opTrackerRule', { protocol: rule.name, rule: choiceLabel(t, 'idRule', rule.name, rule.id_rule), example: rule.id_example })}</p>
        </>
      ) : null}
    </fieldset>
  );
}

/** The tracker as the API takes it: null for none (on a change, that removes it). */
export function deviceOf(fields: FormData): { protocol: string; id: string } | null {
  const protocol = String(fields.get('device_protocol') ?? '');
  return protocol === '' ? null : { protocol, id: String(fields.get('device_id') ?? '').trim() };
}
