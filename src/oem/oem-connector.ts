/** The automaker port is the domain's (src/domain/oem-connector.ts); re-exported for this adapter's modules. */
export { OemFailure, type CommandRequest, type CommandState, type ConnectorLookup, type OemConnector } from '../domain/oem-connector.js';
