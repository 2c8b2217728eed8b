/** The trip settings `serve` runs with when none is set (SETTINGS), for tests that run detection themselves. */
import { tripSettingsOf } from '../../src/config/component-settings.js';
import { loadConfig } from '../../src/config/load-config.js';

export const DEFAULT_TRIP_SETTINGS = tripSettingsOf(loadConfig({}, {}));
export const DEFAULT_TRIP_THRESHOLDS = DEFAULT_TRIP_SETTINGS.thresholds;
