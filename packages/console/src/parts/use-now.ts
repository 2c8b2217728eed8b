import { useEffect, useState } from 'preact/hooks';
import { serverNow } from '../api.js';

/** Now on the service's clock, again every `everyMs`: a screen left open re-judges what it shows. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    const timer = setInterval(() => setNow(serverNow()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
