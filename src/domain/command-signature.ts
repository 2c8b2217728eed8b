/** The signed body of POST /vehicle-command is part of the contract package; re-exported for the service's imports. */
export { canonicalCommandBody, SIGNATURE_PATTERN } from '@telematics/contract';
