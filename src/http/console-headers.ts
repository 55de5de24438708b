// The audit console's response headers (its page, its assets, GET /v1/entries): the page loads
// script, style and data from this origin only, runs no inline script or style and no HTML sink
// (Trusted Types), no other site may frame it, and no answer is sniffed into another type. The
// page builds its DOM from text nodes (web/src/dom.ts); this is the second layer under that.
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/** The console's Content-Security-Policy directives (hono's names), exported for the tests. */
export const CONSOLE_CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'none'"],
  requireTrustedTypesFor: ["'script'"],
  trustedTypes: ["'none'"],
};

/** One middleware for every console route. HSTS is left to whatever terminates TLS in front. */
export function consoleHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: CONSOLE_CSP,
    xFrameOptions: 'DENY',
    xContentTypeOptions: 'nosniff',
    referrerPolicy: 'no-referrer',
    crossOriginResourcePolicy: 'same-origin',
    strictTransportSecurity: false,
  });
}

/** Every other answer (JSON, text): nothing to run or frame, and never sniffed as HTML. */
const API_HEADERS: [string, string][] = [
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
];

/**
 * On every route (the console page reads /v1/entries/:seq, /v1/payloads/:digest, /v1/checkpoint
 * and /v1/replay, and a payload is caller-written text): headers the console routes set stay, the
 * others get the API's. Set after the handler, so no route can forget them.
 */
export function apiHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of API_HEADERS) {
      try {
        if (!c.res.headers.has(name)) c.res.headers.set(name, value);
      } catch {
        // an immutable Response (a proxied one): its headers are its origin's
      }
    }
  };
}
