/** The service reads dates as text at -03:00 unless they carry an offset; a Date is written so. */
const SERVICE_OFFSET_MS = -3 * 3_600_000;

/** `YYYY-MM-DDTHH:MM:SS-03:00` for a Date (whole seconds, as the service's formats are); text unchanged. */
export function dateText(value: string | Date): string {
  if (typeof value === 'string') return value;
  if (Number.isNaN(value.getTime())) throw new RangeError('an invalid Date cannot be sent');
  return `${new Date(value.getTime() + SERVICE_OFFSET_MS).toISOString().slice(0, 19)}-03:00`;
}

/** The body of a vehicle-data or trips query: lists as given, dates as the service reads them. */
export function queryBody(query: { readonly vins: readonly string[]; readonly datapoints: readonly string[]; readonly start_date?: string | Date; readonly end_date?: string | Date }) {
  return {
    vins: query.vins, datapoints: query.datapoints,
    ...(query.start_date === undefined ? {} : { start_date: dateText(query.start_date) }),
    ...(query.end_date === undefined ? {} : { end_date: dateText(query.end_date) }),
  };
}
