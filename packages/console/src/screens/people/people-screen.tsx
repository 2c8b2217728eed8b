/**
 * People: the company's users, for owners and admins. Invite (the set-password link is shown
 * once, to hand over), change a role, reset a password (a new link), remove. What a role may not
 * do is refused by the server with its text, shown here as it comes.
 */
import { useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import { useI18n } from '../../i18n/i18n.js';
import type { MessageKey } from '../../i18n/en.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { useAction } from '../../parts/use-action.js';
import type { Session } from '../../types.js';

const ROLES = ['owner', 'admin', 'dispatcher', 'viewer'] as const;

interface Person {
  readonly id: string;
  readonly email: string;
  readonly role: (typeof ROLES)[number];
  readonly status: 'active' | 'invited';
  readonly second_factor: boolean;
}

interface LinkAnswer { readonly user: Person; readonly link: string; readonly link_expires: string }

export function PeopleScreen({ session }: { session: Session }) {
  const { t } = useI18n();
  const people = useLoad(() => apiCall<{ data: Person[] }>('GET', '/users'), []);
  const [link, setLink] = useState<{ email: string; url: string; expires: string } | undefined>();
  const [removing, setRemoving] = useState<Person | undefined>();
  const { run: act, busy, problem } = useAction(people.reload);
  const showLink = (answer: LinkAnswer) => setLink({ email: answer.user.email, url: `${location.origin}${answer.link}`, expires: answer.link_expires });
  const invite = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    return act(async () => {
      showLink(await apiCall<LinkAnswer>('POST', '/users', { email: form.get('email'), role: form.get('role') }));
      (event.currentTarget as HTMLFormElement | null)?.reset();
    });
  };

  if (people.error && !people.data) return <Problem error={people.error} onRetry={people.reload} />;
  if (!people.data) return <p class="loading">{t('loading')}</p>;
  const roleName = (role: string) => t(`role_${role}` as MessageKey);
  return (
    <section class="people" data-ready={people.loading ? undefined : 'true'} aria-labelledby="people-title">
      <h1 id="people-title">{t('people')}</h1>
      {link ? (
        <div class="notice" role="status">
          <p>{t('linkFor', { email: link.email, expires: link.expires })}</p>
          <p><output class="link">{link.url}</output></p>
        </div>
      ) : null}
      {problem ? <p class="problem" role="alert">{problem}</p> : null}
      <form class="invite" onSubmit={invite} aria-labelledby="invite-title">
        <h2 id="invite-title">{t('invitePerson')}</h2>
        <label>{t('email')}<input name="email" type="email" required spellcheck={false} /></label>
        <label>{t('roleLabel')}
          <select name="role">{ROLES.map((r) => <option key={r} value={r} selected={r === 'viewer'}>{roleName(r)}</option>)}</select>
        </label>
        <button type="submit" disabled={busy}>{t('invite')}</button>
      </form>
      <table>
        <caption>{t('peopleTable')}</caption>
        <thead>
          <tr><th scope="col">{t('email')}</th><th scope="col">{t('roleLabel')}</th><th scope="col">{t('personStatus')}</th><th scope="col">{t('secondFactor')}</th><th scope="col">{t('ruleActions')}</th></tr>
        </thead>
        <tbody>
          {people.data.data.map((p) => (
            <tr key={p.id} data-email={p.email}>
              <th scope="row">{p.email}{session.user.email === p.email ? ` (${t('you')})` : ''}</th>
              <td>
                <select aria-label={`${t('roleLabel')}: ${p.email}`} value={p.role} disabled={busy}
                  onChange={(e) => act(async () => { await apiCall('PATCH', `/users/${p.id}`, { role: (e.currentTarget as HTMLSelectElement).value }); })}>
                  {ROLES.map((r) => <option key={r} value={r}>{roleName(r)}</option>)}
                </select>
              </td>
              <td>{p.status === 'active' ? t('statusActive') : t('statusInvited')}</td>
              <td>{p.second_factor ? t('enabledYes') : t('enabledNo')}</td>
              <td class="buttons">
                <button type="button" disabled={busy} aria-label={`${t('resetPassword')}: ${p.email}`}
                  onClick={() => act(async () => { showLink(await apiCall<LinkAnswer>('POST', `/users/${p.id}/reset-password`)); })}>{t('resetPassword')}</button>
                <button type="button" class="danger" disabled={busy} aria-label={`${t('removePerson')}: ${p.email}`} onClick={() => setRemoving(p)}>{t('removePerson')}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {removing ? (
        <div class="confirm" role="alertdialog" aria-labelledby="remove-title">
          <h2 id="remove-title">{t('confirmRemovePerson', { email: removing.email })}</h2>
          <button type="button" class="danger" disabled={busy} onClick={() => act(async () => { await apiCall('DELETE', `/users/${removing.id}`); setRemoving(undefined); })}>{t('removePerson')}</button>{' '}
          <button type="button" onClick={() => setRemoving(undefined)}>{t('cancel')}</button>
        </div>
      ) : null}
    </section>
  );
}
