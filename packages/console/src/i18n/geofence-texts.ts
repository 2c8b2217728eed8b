/** Texts of the geofence screens and the fence layers on the maps (en is the source of keys). */
export const geofenceTextsEn = {
  geofences: 'Geofences',
} as const;

export const geofenceTextsPtBR: Record<keyof typeof geofenceTextsEn, string> = {
  geofences: 'Cercas',
};
