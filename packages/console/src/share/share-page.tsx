/**
 * The page a share link opens (/share/<token>): the vehicle's newest position on a map and when it
 * was recorded, polled every SHARE_POLL_MS, and nothing else (no session, no navigation). When the
 * link ends while open (revoked, expired) the map goes and the page says so.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { I18n, initialLocale, translator } from '../i18n/i18n.js';
import { useModule } from '../parts/use-module.js';
import type { Basemap } from '../types.js';

export interface SharedPosition {
  readonly label: string | null;
  readonly expires_at: string;
  readonly basemap: Basemap | null;
  readonly position: { latitude: number; longitude: number; recorded_at: string } | null;
}

const SHARE_POLL_MS = 15_000;
/** An instant of the service's ISO form at -03:00, as the translator reads it. */
const serviceTime = (iso: string) => iso.slice(0, 19);

export function SharePage() {
  const i18n = useMemo(() => translator(initialLocale()), []);
  const { t } = i18n;
  const [shared, setShared] = useState<SharedPosition | undefined>();
  const [ended, setEnded] = useState(false);
  const [failed, setFailed] = useState(false);
  const ShareMap = useModule(() => import('./share-map.js'));
  useEffect(() => {
    document.documentElement.lang = i18n.locale;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const response = await fetch(`${location.pathname.replace(/\/+$/, '')}/position`, { headers: { accept: 'application/json' }, cache: 'no-store' });
        if (response.status === 410 || response.status === 404) {
          setEnded(true);
          return;
        }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setShared(await response.json() as SharedPosition);
        setFailed(false);
      } catch {
        // A dropped connection is retried at the next turn; the last position stays shown.
        setFailed(true);
      }
      timer = setTimeout(poll, SHARE_POLL_MS);
    };
    void poll();
    return () => clearTimeout(timer);
  }, []);
  useEffect(() => { document.title = shared?.label ?? t('shareTitle'); }, [shared?.label]);

  const position = shared?.position ?? null;
  return (
    <I18n.Provider value={i18n}>
      <main class="share-page" data-ready={shared || ended ? 'true' : undefined}>
        <h1>{ended ? t('shareEnded') : shared?.label ?? t('shareTitle')}</h1>
        {ended ? null : (
          <>
            {shared ? (
              <p role="status" data-shared-position={position ? `${position.latitude},${position.longitude}` : 'none'}>
                {position
                  ? [
                    t('sharePositionAt', { time: i18n.time(serviceTime(position.recorded_at)) }),
                    t('shareCoordinates', { latitude: i18n.coordinate(position.latitude), longitude: i18n.coordinate(position.longitude) }),
                  ].join(' · ')
                  : t('shareNoPosition')}
              </p>
            ) : <p class="loading">{t('loading')}</p>}
            {failed ? <p class="notice" role="note">{t('shareUnreachable')}</p> : null}
            {shared && ShareMap ? <ShareMap.ShareMap position={position} basemap={shared.basemap} label={t('shareMap')} /> : null}
            {shared ? <p class="muted">{t('shareUntil', { time: i18n.time(serviceTime(shared.expires_at)) })}</p> : null}
          </>
        )}
      </main>
    </I18n.Provider>
  );
}
