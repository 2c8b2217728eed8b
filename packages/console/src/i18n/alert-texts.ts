/** Texts of the Alerts screen and the alert rule editor (en is the source of keys). */
export const alertTextsEn = {
  alerts: 'Alerts',
  alertRules: 'Alert rules',
} as const;

export const alertTextsPtBR: Record<keyof typeof alertTextsEn, string> = {
  alerts: 'Alertas',
  alertRules: 'Regras de alerta',
};
