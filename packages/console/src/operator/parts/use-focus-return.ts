import { useEffect } from 'preact/hooks';

/**
 * Focus on `target` when it appears (a form or a question opened from a row's button), and back
 * where it was when it goes, if that is still on the page and nothing else took the focus
 * meanwhile: a keyboard or screen-reader user is neither left at the top of the page nor made to
 * find the form. `enabled` is read once, as it appears.
 */
export function useFocusReturn(target: { readonly current: HTMLElement | null }, enabled = true): void {
  useEffect(() => {
    if (!enabled) return undefined;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    target.current?.focus();
    // Only focus that was left nowhere: what appeared at the same time (a secret) may have taken it.
    return () => { if (before?.isConnected && (document.activeElement === null || document.activeElement === document.body)) before.focus(); };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
