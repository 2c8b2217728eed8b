import { useI18n } from '../i18n/i18n.js';

export function Problem(props: { error: Error; onRetry?: () => void }) {
  const { t } = useI18n();
  return (
    <div class="problem" role="alert">
      <p>{t('errorPrefix', { detail: props.error.message })}</p>
      {props.onRetry ? <button type="button" onClick={props.onRetry}>{t('retry')}</button> : null}
    </div>
  );
}
