/** The datapoint catalogue is part of the contract package; re-exported for the service's imports. */
export { DATAPOINTS, DATAPOINT_NAMES, datapointSpec, isKnownDatapoint, type DatapointKind, type DatapointSpec } from '@telematics/contract';
