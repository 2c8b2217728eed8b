/** Built by build/places-plugin.ts: [name, longitude, latitude, zoom from which it is labelled], biggest first. */
declare const places: readonly (readonly [string, number, number, number])[];
export default places;
