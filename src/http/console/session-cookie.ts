/**
 * Session cookies: the console's (`telematics_console`) and the operator console's
 * (`telematics_operator`). Over HTTPS (directly or as a trusted proxy reports it) the name takes
 * the `__Host-` prefix: Secure, Path=/, no Domain, so no other site or subdomain can set or read
 * it. A plain-HTTP install (a LAN address) cannot keep a Secure cookie, so there it is the bare
 * name without Secure, and the service logs a warning once: put TLS in front of anything beyond a
 * lab. Both are HttpOnly and SameSite=Strict (a console link opened from mail arrives signed out
 * once, acceptable for an admin tool).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface SessionCookie {
  idOf(request: FastifyRequest): string | undefined;
  set(request: FastifyRequest, reply: FastifyReply, id: string, maxAgeSeconds: number): void;
  clear(request: FastifyRequest, reply: FastifyReply): void;
}

const isHttps = (request: FastifyRequest) => request.protocol === 'https';

export function sessionCookie(name: string): SessionCookie {
  const nameFor = (request: FastifyRequest) => (isHttps(request) ? `__Host-${name}` : name);
  return {
    idOf: (request) => request.cookies[nameFor(request)] ?? undefined,
    set: (request, reply, id, maxAgeSeconds) => {
      reply.setCookie(nameFor(request), id, { path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request), maxAge: maxAgeSeconds });
    },
    clear: (request, reply) => {
      reply.clearCookie(nameFor(request), { path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request) });
    },
  };
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** Warns once, at the first sign-in over plain HTTP from beyond loopback, that its cookie cannot be Secure. */
export function plainHttpWarning(what: string): (request: FastifyRequest) => void {
  let warned = false;
  return (request) => {
    if (warned || isHttps(request) || LOOPBACK.test(request.host)) return;
    warned = true;
    request.log.warn({ host: request.host }, `${what} session over plain HTTP: its cookie cannot be Secure; serve the ${what} over HTTPS`);
  };
}

const consoleCookie = sessionCookie('telematics_console');
export const sessionIdOf = consoleCookie.idOf;
export const setSessionCookie = consoleCookie.set;
export const clearSessionCookie = consoleCookie.clear;

export const operatorCookie = sessionCookie('telematics_operator');
