/**
 * The two-step confirmation of ignition commands (D5): a 6-digit code from the CSPRNG, valid
 * 5 minutes and once; five wrong codes void what is outstanding. With one code accepted among
 * 10^6 and at most 5 tries, a guess succeeds with probability 5·10⁻⁶.
 */
import { randomInt } from 'node:crypto';

export const CONFIRMATION_TTL_MS = 5 * 60_000;
export const MAX_CONFIRMATION_ATTEMPTS = 5;

export function generateConfirmationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export const isConfirmationCodeShape = (code: unknown): code is string => typeof code === 'string' && /^\d{6}$/.test(code);

/** What the user reads before confirming (Portuguese, as the interface requires). */
export const CONFIRMATION_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  disable_ignition: 'Atenção: o bloqueio da ignição impede a partida do veículo até que seja desbloqueado. Confirme apenas com o veículo parado e em local seguro.',
  enable_ignition: 'Atenção: o desbloqueio da ignição permite que o veículo volte a ser ligado. Confirme apenas se tiver certeza de que o veículo está em posse autorizada.',
});
