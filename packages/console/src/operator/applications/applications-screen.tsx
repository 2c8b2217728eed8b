/**
 * One company's applications. Credentials, new or rotated, are answered once: shown here until
 * the operator leaves the screen, and given the focus (the add form, mounted afresh, does not
 * take it).
 */
import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useAction } from '../../parts/use-action.js';
import { useLoad } from '../../parts/use-load.js';
import { CONSOLE_APPLICATION, listOf, operatorCall, segment, type Application, type Choices, type Company, type Credentials } from '../operator-api.js';
import { EntryForm } from '../parts/entry-form.js';
import { nameSetText } from '../parts/name-set-field.js';
import { SecretOnce, type ShownSecret } from '../parts/secret-once.js';
import { useEntries } from '../parts/use-entries.js';
import { ApplicationFields, applicationFieldsOf, scopesOf } from './application-fields.js';
import { RotateSecrets, type SecretKind } from './rotate-secrets.js';

type WithCredentials = Application & { readonly credentials: Credentials };

export function ApplicationsScreen({ company, choices }: { company: Company; choices: Choices }) {
  const i18n = useI18n();
  const { t } = i18n;
  const apps = useLoad(() => listOf<Application>(`/applications?company=${segment(company.id)}`), [company.id]);
  const entries = useEntries<Application>(apps.reload);
  const rotate = useAction(apps.reload);
  const [issued, setIssued] = useState<WithCredentials | undefined>();
  const [rotating, setRotating] = useState<Application | undefined>();
  const { editing } = entries;

  if (apps.error && !apps.data) return <Problem error={apps.error} onRetry={apps.reload} />;
  if (!apps.data) return <p class="loading">{t('loading')}</p>;
  const add = (form: HTMLFormElement) => {
    const name = String(new FormData(form).get('name') ?? '').trim();
    return entries.submitAdd(name, async () => {
      setIssued(await operatorCall<WithCredentials>('POST', '/applications', { company: company.id, name, ...applicationFieldsOf(form, false) }));
    });
  };
  const save = (app: Application) => (form: HTMLFormElement) => entries.submitEdit(app.name, async () => {
    await operatorCall('PATCH', `/applications/${segment(app.client_id)}`, applicationFieldsOf(form, true));
  });
  const rotateSecrets = (app: Application, only: SecretKind) => rotate.run(async () => {
    setIssued(await operatorCall<WithCredentials>('POST', `/applications/${segment(app.client_id)}/secrets`, { only }));
    setRotating(undefined);
  });
  const shown = (credentials: Credentials): ShownSecret[] => [
    { label: t('opClientId'), value: credentials.client_id },
    ...(credentials.client_secret ? [{ label: t('opClientSecret'), value: credentials.client_secret }] : []),
    ...(credentials.sign_secret ? [{ label: t('opSignSecret'), value: credentials.sign_secret }] : []),
  ];
  const names = { company: company.name };
  return (
    <div data-ready={apps.loading ? undefined : 'true'}>
      <p class="muted">{t('opApplicationsHelp')}</p>
      {issued ? (
        <SecretOnce key={`${issued.credentials.client_secret ?? ''}${issued.credentials.sign_secret ?? ''}`}
          notice={t('opCredentialsOnce', { name: issued.name })} secrets={shown(issued.credentials)} />
      ) : null}
      {entries.saved ? <p class="saved" role="status">{t('opSaved', { name: entries.saved })}</p> : null}
      {apps.data.length === 0 ? <p>{t('opNothingYet')}</p> : (
        <div class="list">
          <table>
            <caption>{t('opApplicationsTable', names)}</caption>
            <thead>
              <tr>
                <th scope="col">{t('opName')}</th><th scope="col">{t('opClientId')}</th><th scope="col">{t('opEnabled')}</th>
                <th scope="col">{t('opTokenLifetimeColumn')}</th><th scope="col">{t('opScopes')}</th><th scope="col">{t('opSignSecret')}</th>
                <th scope="col">{t('opCreated')}</th><th scope="col">{t('opActions')}</th>
              </tr>
            </thead>
            <tbody>
              {apps.data.map((a) => (
                <tr key={a.client_id} data-name={a.name} data-client-id={a.client_id}>
                  <th scope="row">{a.name}{a.name === CONSOLE_APPLICATION ? <span class="muted"> ({t('opConsoleApplication')})</span> : null}</th>
                  <td><code>{a.client_id}</code></td>
                  <td>{a.enabled ? t('opYes') : t('opNo')}</td>
                  <td class="num">{i18n.number(a.token_lifetime, 0)}</td>
                  <td class="names">{nameSetText(scopesOf(a.scopes), t('opEvery'))}</td>
                  <td>{a.has_sign_secret ? t('opYes') : t('opNo')}</td>
                  <td>{i18n.time(a.created_at.slice(0, 19))}</td>
                  <td class="buttons">
                    <button type="button" class="secondary" aria-label={`${t('opEdit')}: ${a.name}`} onClick={() => entries.setEditing(a)}>{t('opEdit')}</button>
                    <button type="button" class="danger" aria-label={`${t('opRotate')}: ${a.name}`} onClick={() => setRotating(a)}>{t('opRotate')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rotating ? (
        <RotateSecrets key={rotating.client_id} application={rotating} action={rotate} onRotate={(only) => rotateSecrets(rotating, only)} onCancel={() => setRotating(undefined)} />
      ) : null}
      {editing ? (
        <EntryForm key={editing.client_id} id="edit-application" title={t('opEditApplication', { name: editing.name })} submit={t('opSave')}
          busy={entries.edit.busy} problem={entries.edit.problem} onSubmit={save(editing)} onCancel={() => entries.setEditing(undefined)}>
          <ApplicationFields choices={choices} application={editing} />
        </EntryForm>
      ) : null}
      <EntryForm key={entries.addRound} id="add-application" title={t('opAddApplication', names)} submit={t('opAdd')} busy={entries.add.busy} problem={entries.add.problem} onSubmit={add}>
        <label>{t('opName')}<input name="name" required maxLength={64} spellcheck={false} aria-describedby="add-application-name-help" /></label>
        <p id="add-application-name-help" class="help">{t('opIdentifierHelp')}</p>
        <ApplicationFields choices={choices} />
      </EntryForm>
    </div>
  );
}
