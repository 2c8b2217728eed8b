import { useI18n } from '../../i18n/i18n.js';
import type { Application, Choices, NameSet } from '../operator-api.js';
import { NameSetField, nameSetOf } from '../parts/name-set-field.js';

/** The stored scopes text (`*`, or names space-separated) as a name set. */
export const scopesOf = (text: string): NameSet => (text === '*' ? '*' : text.split(' ').filter((s) => s !== ''));

/** What an application's add and edit forms share: its token lifetime and scopes (and, on a change, whether it is enabled). */
export function ApplicationFields(props: { choices: Choices; application?: Application }) {
  const { t } = useI18n();
  const { min, max } = props.choices.token_lifetime;
  const app = props.application;
  return (
    <>
      {app ? <label class="choice"><input type="checkbox" name="enabled" defaultChecked={app.enabled} />{t('opEnabled')}</label> : null}
      <label>{t('opTokenLifetime', { min, max })}
        <input name="token_lifetime" type="number" min={min} max={max} step={1} required={app !== undefined} defaultValue={app ? String(app.token_lifetime) : ''} />
      </label>
      <NameSetField name="scopes" legend={t('opScopes')} names={props.choices.scopes} initial={app ? scopesOf(app.scopes) : '*'} />
    </>
  );
}

/** The fields as the API takes them; a new application without a token lifetime gets the service's default. */
export function applicationFieldsOf(form: HTMLFormElement, change: boolean): Record<string, unknown> {
  const fields = new FormData(form);
  const lifetime = String(fields.get('token_lifetime') ?? '').trim();
  return {
    ...(change ? { enabled: fields.get('enabled') !== null } : {}),
    ...(lifetime === '' ? {} : { token_lifetime: Number(lifetime) }),
    scopes: nameSetOf(form, 'scopes'),
  };
}
