/**
 * What of an alert event a company may see (D12's rule that nothing carries a datapoint it may
 * not read): an alert whose condition was judged from datapoints it may not read is not seen at
 * all (a low_fuel alert tells the fuel level by being sent), and of what is seen, each field
 * carrying a datapoint is shown only where that datapoint may be read. Pure.
 */
type Needs = readonly (readonly string[])[];

/** Any one list, all of it. */
const ALERT_TRIGGERS: Readonly<Record<string, Needs>> = Object.freeze({
  'alert.overspeed': [['speed']],
  'alert.idling': [['speed', 'rpm'], ['speed', 'event']],
  'alert.no_data': [[]],
  'alert.low_fuel': [['fuel_level']],
  'alert.low_battery': [['lv_battery_voltage']],
  'alert.after_hours': [['speed'], ['rpm'], ['event']],
});

const POSITION: Needs = [['latitude', 'longitude']];
const ALERT_FIELD_SOURCES: Readonly<Record<string, Needs>> = Object.freeze({
  speed: [['speed']], fuel_level: [['fuel_level']], lv_battery_voltage: [['lv_battery_voltage']],
  ignition: [['rpm'], ['event']], latitude: POSITION, longitude: POSITION,
});

const met = (needs: Needs, allowed: (datapoint: string) => boolean) => needs.some((all) => all.every(allowed));

/** The alert's data as the viewer may see it, or undefined when the alert is not seen at all. */
export function alertDataSeen(type: string, data: Readonly<Record<string, unknown>>, allowed: (datapoint: string) => boolean): Record<string, unknown> | undefined {
  if (!met(ALERT_TRIGGERS[type] ?? [[]], allowed)) return undefined;
  const shown: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data)) {
    const sources = ALERT_FIELD_SOURCES[field];
    if (sources === undefined || met(sources, allowed)) shown[field] = value;
  }
  return shown;
}
