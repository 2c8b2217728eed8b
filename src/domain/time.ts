/** The interface's time formats (D1) are part of the contract package; re-exported for the service's imports. */
export {
  ACCEPTED_DATE_FORMATS, createSpacedLocalFormatter, formatDuration, formatIsoLocal, formatIsoWithOffset, formatSpacedLocal, parseInputDate,
  parseRecordInstant, SERVICE_OFFSET_MINUTES, type ParsedInputDate,
} from '@telematics/contract';
