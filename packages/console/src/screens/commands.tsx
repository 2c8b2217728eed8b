import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { apiCall, ApiError } from '../api.js';
import { useI18n } from '../i18n/i18n.js';
import { Problem } from '../parts/problem.js';
import { useLoad } from '../parts/use-load.js';
import type { CommandItem, Vehicle } from '../types.js';
import { fieldLabel } from '../i18n/field-labels.js';
import { englishLineFor } from '../i18n/known-phrases.js';
import { fieldValue } from '../parts/field-value.js';

const COMMANDS = ['diagnostics', 'enable_ignition', 'disable_ignition'] as const;
type Command = (typeof COMMANDS)[number];
const POLL_MS = 1000;

/**
 * Commands are signed by the service on the session (the page never holds the sign-secret). An
 * ignition command's first answer is a confirmation: its Portuguese message and code are shown and
 * nothing more is sent until the user confirms.
 */
export function CommandsScreen({ mayCommand }: { mayCommand: boolean }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { query } = useLocation();
  const vehicles = useLoad(() => apiCall<Vehicle[]>('GET', '/vehicle'), []);
  const [vin, setVin] = useState<string>(query.vin ?? '');
  useEffect(() => { if (!vin && vehicles.data?.[0]) setVin(vehicles.data[0].vin); }, [vehicles.data]);
  const history = useLoad(async () => (vin ? (await apiCall<{ data: CommandItem[] }>('GET', `/vehicle-commands?vin=${vin}&limit=20`)).data : []), [vin]);
  const [current, setCurrent] = useState<CommandItem | undefined>();
  const [confirming, setConfirming] = useState<CommandItem | undefined>();
  const [error, setError] = useState<Error | undefined>();
  // One request at a time: a double click must not send a command twice.
  const [sending, setSending] = useState(false);

  // The command in flight, read again every second until it ends.
  useEffect(() => {
    if (!current || current.status !== 'Pending') return undefined;
    const timer = setTimeout(async () => {
      try {
        const status = await apiCall<CommandItem>('GET', `/vehicle-command/${current.id}`);
        setCurrent(status);
        if (status.status !== 'Pending') history.reload();
      } catch (e) {
        setError(e as Error);
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [current]);

  const send = async (command: Command, code?: string) => {
    if (sending) return;
    setSending(true);
    setError(undefined);
    try {
      const answer = await apiCall<CommandItem>('POST', '/vehicle-command', { vin, command, ...(code ? { code } : {}) });
      if (answer.status === 'Confirmation') setConfirming(answer);
      else { setConfirming(undefined); setCurrent(answer); }
      history.reload();
    } catch (e) {
      if (e instanceof ApiError && e.status === 502) setCurrent({ vin, command, id: '', status: 'Error', detail: e.detail });
      setError(e as Error);
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="commands" data-ready={vehicles.data ? 'true' : undefined} aria-labelledby="commands-title">
      <h1 id="commands-title">{t('commands')}</h1>
      {vehicles.error ? <Problem error={vehicles.error} onRetry={vehicles.reload} /> : null}
      <form class="send" onSubmit={(e) => e.preventDefault()} aria-labelledby="send-title">
        <h2 id="send-title">{t('sendCommand')}</h2>
        <label>{t('chooseVehicle')}
          <select value={vin} onChange={(e) => { setVin((e.currentTarget as HTMLSelectElement).value); setCurrent(undefined); setConfirming(undefined); }}>
            {(vehicles.data ?? []).map((v) => <option value={v.vin} key={v.vin}>{v.vin} · {v.plate} · {v.model}</option>)}
          </select>
        </label>
        {mayCommand ? null : <p class="notice" role="note">{t('readOnlySession')}</p>}
        <div class="buttons">
          {mayCommand ? COMMANDS.map((c) => <button type="button" key={c} disabled={!vin || sending || confirming !== undefined} onClick={() => send(c)}>{t(c)}</button>) : null}
        </div>
      </form>
      {confirming ? (
        <div class="confirm" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-explain">
          <h2 id="confirm-title">{t('confirmTitle', { command: t(confirming.command as Command) })}</h2>
          <p id="confirm-explain">{t('confirmExplain')}</p>
          <blockquote lang="pt-BR">{confirming.message}</blockquote>
          <EnglishLine text={confirming.message ?? ''} />
          <p>{t('confirmCode')}: <output class="code">{confirming.code}</output></p>
          <button type="button" class="danger" disabled={sending} onClick={() => send(confirming.command as Command, confirming.code)}>{t('confirm')}</button>{' '}
          <button type="button" onClick={() => setConfirming(undefined)}>{t('cancel')}</button>
        </div>
      ) : null}
      {error ? <Problem error={error} /> : null}
      {current ? (
        <div class="current" aria-live="polite">
          <p>{t(current.command as Command)}: <strong data-status={current.status}>{t(`status_${current.status}`)}</strong></p>
          {current.status === 'Success' || current.status === 'Error' ? <Result detail={current.detail} /> : null}
        </div>
      ) : null}
      <h2 id="history-title">{t('history')}</h2>
      {history.error ? <Problem error={history.error} onRetry={history.reload} /> : null}
      {history.data && history.data.length === 0 ? <p>{t('noCommands')}</p> : null}
      {history.data && history.data.length > 0 ? (
        <table aria-labelledby="history-title">
          <thead><tr><th scope="col">{t('created')}</th><th scope="col">{t('command')}</th><th scope="col">{t('status')}</th><th scope="col">{t('updated')}</th></tr></thead>
          <tbody>
            {history.data.map((c) => (
              <tr key={c.id}>
                <td>{c.created ? i18n.time(c.created) : ''}</td><td>{t(c.command as Command)}</td>
                <td>{t(`status_${c.status}`)}</td><td>{c.updated ? i18n.time(c.updated) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** In the English console, an English line beside a Portuguese text the console knows; nothing else. */
function EnglishLine({ text }: { text: string }) {
  const { t, locale } = useI18n();
  const english = locale === 'en' ? englishLineFor(text) : undefined;
  return english === undefined ? null : <p class="translation" lang="en"><span class="muted">{t('englishLine')}:</span> {english}</p>;
}

function Result({ detail }: { detail: unknown }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (typeof detail === 'string') return <p role="status">{t('result')}: {detail}</p>;
  const entries = detail && typeof detail === 'object' ? Object.entries(detail as Record<string, unknown>) : [];
  return (
    <dl class="result" aria-label={t('result')}>
      {entries.map(([k, v]) => <div key={k}><dt data-field={k}>{fieldLabel(k, i18n.locale)}</dt><dd>{fieldValue(k, v, i18n)}</dd></div>)}
    </dl>
  );
}
