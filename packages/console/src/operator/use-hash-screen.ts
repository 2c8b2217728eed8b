/**
 * Which screen is shown, from the fragment (`#plans`): the service answers only `/operator/`,
 * so a path per screen would not load on reload, and a fragment never reaches the server.
 */
import { useEffect, useState } from 'preact/hooks';

export const SCREENS = ['companies', 'plans', 'oems', 'vehicles', 'applications'] as const;
export type Screen = (typeof SCREENS)[number];

const screenOf = (hash: string): Screen => SCREENS.find((s) => `#${s}` === hash) ?? 'companies';

export function useHashScreen(): Screen {
  const [screen, setScreen] = useState<Screen>(() => screenOf(location.hash));
  useEffect(() => {
    const follow = () => setScreen(screenOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return screen;
}
