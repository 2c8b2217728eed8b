import { useEffect, useState } from 'preact/hooks';

/** A lazily imported module (its own chunk), undefined until it has loaded. */
export function useModule<M>(load: () => Promise<M>): M | undefined {
  const [mod, setMod] = useState<M | undefined>(undefined);
  useEffect(() => {
    let current = true;
    load().then((m) => { if (current) setMod(() => m); }, (error: unknown) => console.warn('module failed to load', error));
    return () => { current = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return mod;
}
