import { useI18n } from '../../i18n/i18n.js';
import type { Choices, NameSet, Oem } from '../operator-api.js';
import { NameSetField, nameSetOf } from '../parts/name-set-field.js';
import { SelectField } from '../parts/select-field.js';

/** What an automaker's add and edit forms share: everything but its name. */
export function OemFields(props: { choices: Choices; oem?: Oem }) {
  const { t } = useI18n();
  return (
    <>
      <SelectField label={t('opConnector')} name="connector" values={props.choices.connectors} initial={props.oem?.connector} />
      <label>{t('opBaseUrl')}<input name="base_url" type="url" maxLength={2048} spellcheck={false} defaultValue={props.oem?.base_url ?? ''} /></label>
      <NameSetField name="datapoints" legend={t('opDatapoints')} names={props.choices.datapoints} initial={props.oem?.datapoints ?? '*'} />
      <NameSetField name="commands" legend={t('opCommands')} names={props.choices.commands} initial={props.oem?.commands ?? '*'} />
    </>
  );
}

/** The fields as the API takes them; an empty base URL is left out of an add and clears an edited one (null). */
export function oemFieldsOf(form: HTMLFormElement, editing: boolean): { connector: string; base_url?: string | null; datapoints: NameSet; commands: NameSet } {
  const fields = new FormData(form);
  const baseUrl = String(fields.get('base_url') ?? '').trim();
  return {
    connector: String(fields.get('connector')), ...(baseUrl !== '' ? { base_url: baseUrl } : editing ? { base_url: null } : {}),
    datapoints: nameSetOf(form, 'datapoints'), commands: nameSetOf(form, 'commands'),
  };
}
