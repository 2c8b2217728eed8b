/**
 * A vehicle's share links, on its screen, for a role that may share (`shares:manage`): create one
 * (its URL shown once, to copy and hand over), see them all, revoke an active one.
 */
import { useState } from 'preact/hooks';
import { apiCall } from '../api.js';
import { useI18n } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/en.js';
import { Problem } from '../parts/problem.js';
import { useAction } from '../parts/use-action.js';
import { useLoad } from '../parts/use-load.js';

interface ShareLink {
  readonly id: string;
  readonly label: string | null;
  readonly state: 'active' | 'expired' | 'revoked';
  readonly expires_at: string;
  readonly created_by: { readonly kind: string; readonly id: string };
}

const HOUR_S = 3600;
const LASTING_S = [HOUR_S, 8 * HOUR_S, 24 * HOUR_S, 3 * 24 * HOUR_S, 7 * 24 * HOUR_S];
/** The service's own default: a day. */
const DEFAULT_LASTING_S = 24 * HOUR_S;

export function ShareLinksSection({ vin }: { vin: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const links = useLoad(() => apiCall<{ data: ShareLink[] }>('GET', `/share-links?vin=${encodeURIComponent(vin)}`), [vin]);
  const { run, busy, problem } = useAction(links.reload);
  const [created, setCreated] = useState<string | undefined>();
  const [copied, setCopied] = useState(false);
  const [lastingS, setLastingS] = useState(DEFAULT_LASTING_S);
  const lasting = (seconds: number) => {
    if (seconds < 24 * HOUR_S) return t('hours', { n: seconds / HOUR_S });
    return seconds === 24 * HOUR_S ? t('shareDay') : t('shareDays', { n: seconds / (24 * HOUR_S) });
  };
  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const label = String(fields.get('label') ?? '').trim();
    return run(async () => {
      const answer = await apiCall<{ url: string }>('POST', '/share-links', { vin, expires_in: lastingS, ...(label ? { label } : {}) });
      setCreated(answer.url);
      setCopied(false);
      (form.elements.namedItem('label') as HTMLInputElement).value = '';
    });
  };
  const copy = async () => {
    if (created === undefined) return;
    await navigator.clipboard?.writeText(created).then(() => setCopied(true), () => undefined);
  };
  const until = (iso: string) => i18n.time(iso.slice(0, 19));
  return (
    <section class="share-links" aria-labelledby="share-title" data-ready={links.loading ? undefined : 'true'}>
      <h2 id="share-title">{t('shareLinks')}</h2>
      <p class="muted">{t('shareLinksHelp')}</p>
      <form onSubmit={create}>
        <label>{t('shareLasting')}
          <select name="expires_in" value={String(lastingS)} onChange={(e) => setLastingS(Number((e.currentTarget as HTMLSelectElement).value))}>
            {LASTING_S.map((s) => <option key={s} value={s}>{lasting(s)}</option>)}
          </select>
        </label>{' '}
        <label>{t('shareLabelField')}<input name="label" maxLength={80} /></label>{' '}
        <button type="submit" disabled={busy}>{t('shareCreate')}</button>
      </form>
      {created ? (
        <div class="notice new-link" role="status">
          <p>{t('shareCreated')}</p>
          <input readOnly value={created} aria-label={t('shareLinkUrl')} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />{' '}
          <button type="button" onClick={copy}>{copied ? t('shareCopied') : t('shareCopy')}</button>
        </div>
      ) : null}
      {problem ? <p class="problem" role="alert">{problem}</p> : null}
      {links.error ? <Problem error={links.error} onRetry={links.reload} /> : null}
      {links.data && links.data.data.length === 0 ? <p>{t('shareNone')}</p> : null}
      {links.data && links.data.data.length > 0 ? (
        <table>
          <caption>{t('shareTable')}</caption>
          <thead>
            <tr><th scope="col">{t('shareColumnLabel')}</th><th scope="col">{t('shareColumnState')}</th><th scope="col">{t('shareColumnUntil')}</th><th scope="col">{t('shareColumnBy')}</th><th scope="col">{t('ruleActions')}</th></tr>
          </thead>
          <tbody>
            {links.data.data.map((link) => (
              <tr key={link.id} data-share-state={link.state}>
                <th scope="row">{link.label ?? '—'}</th>
                <td>{t(`share_${link.state}` as MessageKey)}</td>
                <td>{until(link.expires_at)}</td>
                <td>{link.created_by.id}</td>
                <td>
                  {link.state === 'active' ? (
                    <button type="button" class="danger" disabled={busy} aria-label={t('shareRevokeNamed', { label: link.label ?? until(link.expires_at) })}
                      onClick={() => run(async () => { await apiCall('DELETE', `/share-links/${link.id}`); })}>{t('shareRevoke')}</button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
