import { useRef, useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { useFocusReturn } from './use-focus-return.js';

export interface ShownSecret { readonly label: string; readonly value: string }

/**
 * A secret the service answers once and keeps no readable copy of: in a marked box that says so,
 * each value ready to copy. It lives only in the screen that asked for it, so leaving the screen
 * forgets it. The box takes the focus as it appears, to be read out first.
 */
export function SecretOnce(props: { notice: string; secrets: readonly ShownSecret[] }) {
  const { t } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState<string | undefined>();
  useFocusReturn(box);
  const copy = (secret: ShownSecret) => navigator.clipboard?.writeText(secret.value).then(() => setCopied(secret.label), () => undefined);
  return (
    <div class="secret-once" role="status" tabIndex={-1} ref={box} aria-labelledby="secret-once-title">
      <h2 id="secret-once-title">{t('opShownOnce')}</h2>
      <p>{props.notice}</p>
      <dl>
        {props.secrets.map((s) => (
          <div key={s.label}>
            <dt>{s.label}</dt>
            <dd>
              <input readOnly value={s.value} aria-label={s.label} data-secret={s.label} spellcheck={false} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />{' '}
              <button type="button" class="secondary" aria-label={`${t('opCopy')}: ${s.label}`} onClick={() => copy(s)}>{copied === s.label ? t('opCopied') : t('opCopy')}</button>
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
