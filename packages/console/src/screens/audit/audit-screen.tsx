/**
 * Audit: the company's audit trail, newest first, for owners and admins (GET /audit): who (a
 * person, an application, the operator or the service), what, on what, with which outcome and
 * the details recorded. An action filter (a name, or a prefix ending in "."), and Older reading
 * the next page back. The hashes that chain the entries are the operator's to verify
 * (`telematics admin audit verify`); the screen shows the short form of each.
 */
import { useState } from 'preact/hooks';
import type { AuditPage } from '@telematics/contract';
import { apiCall } from '../../api.js';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';

const PAGE = 50;
const ACTIONS = ['', 'command.', 'user.', 'geofence.', 'alert_rule.', 'webhook_endpoint.', 'application.', 'vehicle.'] as const;

type Entry = AuditPage['data'][number];

export function AuditScreen() {
  const { t } = useI18n();
  const [action, setAction] = useState('');
  const [older, setOlder] = useState<Entry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const first = useLoad(async () => {
    const query = new URLSearchParams({ limit: String(PAGE), ...(action ? { action } : {}) });
    const page = await apiCall<AuditPage>('GET', `/audit?${query}`);
    setOlder([]);
    setCursor(page.next_cursor);
    return page;
  }, [action]);
  const [problem, setProblem] = useState<Error | undefined>();

  const readOlder = async () => {
    if (!cursor) return;
    try {
      const query = new URLSearchParams({ limit: String(PAGE), before: cursor, ...(action ? { action } : {}) });
      const page = await apiCall<AuditPage>('GET', `/audit?${query}`);
      setOlder((o) => [...o, ...page.data]);
      setCursor(page.next_cursor);
    } catch (e) {
      setProblem(e as Error);
    }
  };

  if (first.error && !first.data) return <Problem error={first.error} onRetry={first.reload} />;
  if (!first.data) return <p class="loading">{t('loading')}</p>;
  const entries = [...first.data.data, ...older];
  return (
    <section class="audit" data-ready={first.loading ? undefined : 'true'} aria-labelledby="audit-title">
      <h1 id="audit-title">{t('audit')}</h1>
      <p class="help">{t('auditHelp')}</p>
      <label>{t('auditAction')}
        <select value={action} onChange={(e) => setAction((e.currentTarget as HTMLSelectElement).value)}>
          {ACTIONS.map((a) => <option key={a} value={a}>{a === '' ? t('allKinds') : a}</option>)}
        </select>
      </label>
      {problem ? <Problem error={problem} /> : null}
      {entries.length === 0 ? <p role="status">{t('auditEmpty')}</p> : (
        <table>
          <caption>{t('auditTable')}</caption>
          <thead>
            <tr>
              <th scope="col" class="num">#</th><th scope="col">{t('auditAt')}</th><th scope="col">{t('auditWho')}</th><th scope="col">{t('auditAction')}</th>
              <th scope="col">{t('auditTarget')}</th><th scope="col">{t('auditOutcome')}</th><th scope="col">{t('auditDetails')}</th><th scope="col">{t('auditHash')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.seq} data-seq={e.seq} data-action={e.action}>
                <td class="num">{e.seq}</td>
                <td>{e.at}</td>
                <td>{e.actor.kind}: {e.actor.id}</td>
                <th scope="row">{e.action}</th>
                <td>{e.target ?? '—'}</td>
                <td>{e.outcome}</td>
                <td><code>{Object.keys(e.details).length === 0 ? '—' : JSON.stringify(e.details)}</code></td>
                <td><code title={e.hash}>{e.hash.slice(0, 12)}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor ? <p class="buttons"><button type="button" onClick={readOlder}>{t('olderAlerts')}</button></p> : null}
    </section>
  );
}
