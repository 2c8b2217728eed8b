/**
 * English lines for the Portuguese texts the service and its automakers send (the interface
 * requires the ignition alert in Portuguese). The English console shows the text as sent and this
 * line beside it; a text not listed here is shown as sent only: no guessed translation. The keys
 * must stay the exact texts sent (test/console/known-phrases.test.ts holds them to the service's).
 */
const ENGLISH: Readonly<Record<string, string>> = {
  'Atenção: o bloqueio da ignição impede a partida do veículo até que seja desbloqueado. Confirme apenas com o veículo parado e em local seguro.':
    'Warning: disabling the ignition keeps the vehicle from starting until it is enabled again. Confirm only with the vehicle stopped and in a safe place.',
  'Atenção: o desbloqueio da ignição permite que o veículo volte a ser ligado. Confirme apenas se tiver certeza de que o veículo está em posse autorizada.':
    'Warning: enabling the ignition lets the vehicle be started again. Confirm only if you are sure the vehicle is in authorised hands.',
};

export function englishLineFor(portuguese: string): string | undefined {
  return ENGLISH[portuguese.trim()];
}

export const KNOWN_PORTUGUESE: readonly string[] = Object.keys(ENGLISH);
