import type { Scope } from '@presence/contract';
import type { RouteOptions } from 'fastify';
import type { App } from './types.js';

/** One registered route, as the security suite and operators need to see it. */
export interface RouteEntry {
  method: string;
  url: string;
  /** The scope the auth plugin requires (undefined: a public route). */
  scope: Scope | undefined;
  /** The body schema, if the route validates one. */
  bodySchema: unknown;
}

/**
 * Records every route registered from now on, in this context and every child context (the
 * portal included), so the route-complete security suite derives its cases from the real table
 * rather than from a list someone has to keep up to date. HEAD twins of GET routes are left out.
 */
export function recordRouteTable(app: App): readonly RouteEntry[] {
  const table: RouteEntry[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      table.push({
        method,
        url: route.url,
        scope: (route.config as { scope?: Scope } | undefined)?.scope,
        bodySchema: route.schema?.body,
      });
    }
  });
  return table;
}
