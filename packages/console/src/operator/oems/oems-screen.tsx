/**
 * Automakers: where vehicles' data comes from. A new automaker's ingest key, and a replaced one,
 * is answered once: shown here until the operator leaves the screen, and given the focus (the
 * add form, mounted afresh, does not take it).
 */
import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useAction } from '../../parts/use-action.js';
import { useLoad } from '../../parts/use-load.js';
import { listOf, operatorCall, segment, type Choices, type Oem } from '../operator-api.js';
import { ConfirmBox } from '../parts/confirm-box.js';
import { EntryForm } from '../parts/entry-form.js';
import { nameSetText } from '../parts/name-set-field.js';
import { SecretOnce } from '../parts/secret-once.js';
import { useEntries } from '../parts/use-entries.js';
import { OemFields, oemFieldsOf } from './oem-fields.js';

type WithKey = Oem & { readonly ingest_key: string };

export function OemsScreen({ choices }: { choices: Choices }) {
  const { t } = useI18n();
  const oems = useLoad(() => listOf<Oem>('/oems'), []);
  const entries = useEntries<Oem>(oems.reload);
  const replace = useAction(oems.reload);
  const [issued, setIssued] = useState<WithKey | undefined>();
  const [replacing, setReplacing] = useState<Oem | undefined>();
  const { editing } = entries;

  if (oems.error && !oems.data) return <Problem error={oems.error} onRetry={oems.reload} />;
  if (!oems.data) return <p class="loading">{t('loading')}</p>;
  const add = (form: HTMLFormElement) => {
    const name = String(new FormData(form).get('name') ?? '').trim();
    return entries.submitAdd(name, async () => { setIssued(await operatorCall<WithKey>('POST', '/oems', { name, ...oemFieldsOf(form, false) })); });
  };
  const save = (oem: Oem) => (form: HTMLFormElement) => entries.submitEdit(oem.name, async () => {
    await operatorCall('PATCH', `/oems/${segment(oem.name)}`, oemFieldsOf(form, true));
  });
  const replaceKey = (oem: Oem) => replace.run(async () => {
    setIssued(await operatorCall<WithKey>('POST', `/oems/${segment(oem.name)}/ingest-key`, {}));
    setReplacing(undefined);
  });
  return (
    <div data-ready={oems.loading ? undefined : 'true'}>
      <p class="muted">{t('opOemsHelp')}</p>
      {issued ? <SecretOnce key={issued.ingest_key} notice={t('opIngestKeyOnce', { name: issued.name })} secrets={[{ label: t('opIngestKey'), value: issued.ingest_key }]} /> : null}
      {entries.saved ? <p class="saved" role="status">{t('opSaved', { name: entries.saved })}</p> : null}
      {oems.data.length === 0 ? <p>{t('opNothingYet')}</p> : (
        <div class="list">
          <table>
            <caption>{t('opOemsTable')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('opName')}</th><th scope="col">{t('opConnector')}</th><th scope="col">{t('opBaseUrl')}</th>
                <th scope="col">{t('opDatapoints')}</th><th scope="col">{t('opCommands')}</th><th scope="col">{t('opActions')}</th>
              </tr>
            </thead>
            <tbody>
              {oems.data.map((o) => (
                <tr key={o.name} data-name={o.name}>
                  <th scope="row">{o.name}</th>
                  <td>{o.connector}</td>
                  <td>{o.base_url ?? '—'}</td>
                  <td class="names">{nameSetText(o.datapoints, t('opEvery'))}</td>
                  <td class="names">{nameSetText(o.commands, t('opEvery'))}</td>
                  <td class="buttons">
                    <button type="button" class="secondary" aria-label={`${t('opEdit')}: ${o.name}`} onClick={() => entries.setEditing(o)}>{t('opEdit')}</button>
                    <button type="button" class="danger" aria-label={`${t('opReplaceKey')}: ${o.name}`} onClick={() => setReplacing(o)}>{t('opReplaceKey')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {replacing ? (
        <ConfirmBox key={replacing.name} id="replace-key" title={t('opReplaceKeyConfirm', { name: replacing.name })} yes={t('opReplaceKeyYes')}
          busy={replace.busy} problem={replace.problem} onYes={() => replaceKey(replacing)} onNo={() => setReplacing(undefined)} />
      ) : null}
      {editing ? (
        <EntryForm key={editing.name} id="edit-oem" title={t('opEditOem', { name: editing.name })} submit={t('opSave')} busy={entries.edit.busy} problem={entries.edit.problem}
          onSubmit={save(editing)} onCancel={() => entries.setEditing(undefined)}>
          <OemFields choices={choices} oem={editing} />
        </EntryForm>
      ) : null}
      <EntryForm key={entries.addRound} id="add-oem" title={t('opAddOem')} submit={t('opAdd')} busy={entries.add.busy} problem={entries.add.problem} onSubmit={add}>
        <label>{t('opName')}<input name="name" required maxLength={64} spellcheck={false} aria-describedby="add-oem-name-help" /></label>
        <p id="add-oem-name-help" class="help">{t('opIdentifierHelp')}</p>
        <OemFields choices={choices} />
      </EntryForm>
    </div>
  );
}
