/** What the console needs beyond the API's dependencies; the console is served when these are given. */
import type { ConsoleSessionSettings } from '../../auth/console-sessions.js';
import type { Basemap } from '../../domain/basemap.js';

export interface ConsoleSettings {
  readonly sessions: ConsoleSessionSettings;
  readonly basemap: Basemap | null;
  /** The built console (packages/console/dist); found beside the service when absent. */
  readonly distDir?: string;
}
