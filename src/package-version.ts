/**
 * The service's version: the repository's package.json, read where it is installed. What
 * `telematics --version` prints and the OpenAPI document's `info.version` says, so neither can
 * drift from the release.
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}
