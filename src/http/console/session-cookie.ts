/**
 * The session cookie. Over HTTPS (directly or as a trusted proxy reports it) it is
 * `__Host-telematics_console`: Secure, Path=/, no Domain, so no other site or subdomain can set or
 * read it. A plain-HTTP install (a LAN address) cannot keep a Secure cookie, so there it is
 * `telematics_console` without Secure, and the service logs a warning once: put TLS in front of
 * anything beyond a lab. Both are HttpOnly and SameSite=Strict (a console link opened from mail
 * arrives signed out once, acceptable for an admin tool).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SECURE_COOKIE = '__Host-telematics_console';
export const PLAIN_COOKIE = 'telematics_console';

const isHttps = (request: FastifyRequest) => request.protocol === 'https';

export function sessionCookieName(request: FastifyRequest): string {
  return isHttps(request) ? SECURE_COOKIE : PLAIN_COOKIE;
}

export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies[sessionCookieName(request)] ?? undefined;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string, maxAgeSeconds: number): void {
  reply.setCookie(sessionCookieName(request), id, { path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request), maxAge: maxAgeSeconds });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(request), { path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request) });
}
