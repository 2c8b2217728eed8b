/**
 * The additional data each kind of sealed value is bound to (secret-box.ts): a box copied to
 * another row, application or kind does not open. Both the code that seals a value and the key
 * rotation that seals it again need the same string, so it lives here, beside the box.
 */

/** An application's sign-secret, bound to the application. */
export const signSecretSealingContext = (applicationId: string): string => `application:${applicationId}:sign-secret`;

/** A kept Idempotency-Key response, bound to its application and key. */
export const idempotencySealingContext = (applicationId: string, key: string): string => `idempotency:${applicationId}:${key}`;

/** A webhook endpoint's signing secret (current or previous), bound to the endpoint. */
export const webhookSecretSealingContext = (endpointId: string): string => `webhook-endpoint:${endpointId}:secret`;

/** A user's TOTP secret (enrolled or being enrolled), bound to the user. */
export const totpSecretSealingContext = (userId: string): string => `user:${userId}:totp-secret`;
