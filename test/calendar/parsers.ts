import type ICALModule from 'ical.js' with { 'resolution-mode': 'import' };

/**
 * The two iCalendar parsers the documents are checked with: ical.js (Mozilla's, Thunderbird's)
 * and node-ical. ical.js declares ES module types only; its CommonJS build is what loads here.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const ICAL = require('ical.js') as typeof ICALModule;
export type IcalComponent = InstanceType<typeof ICAL.Component>;
export type IcalTimezone = InstanceType<typeof ICAL.Timezone>;
export { sync as nodeIcal } from 'node-ical';
