import type { Static, TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { SignedInMember } from '../../domain/console/authenticate-session.js';
import { requirePermission, type ConsolePermission } from '../../domain/console/permissions.js';
import { asMember } from '../../domain/console/record-audit.js';
import type { App } from '../../http/types.js';
import type { SafeHtml } from '../html.js';
import { checkCsrf, consoleRequest, memberOf, type ConsoleContext } from './console-context.js';
import { renderPage } from './layout.js';

/** What a page handler sees: the domain, the member, its tenant and the CSRF token for forms. */
export interface View {
  ctx: ConsoleContext;
  signedIn: SignedInMember;
  tenantId: string;
  csrf: string;
}

export interface PageBody {
  title: string;
  nav: string;
  body: SafeHtml;
}

export type Outcome = PageBody | { redirect: string };

interface Input<Q extends TSchema, P extends TSchema, B extends TSchema> {
  query: Static<Q>;
  params: Static<P>;
  body: Static<B>;
  view: View;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** Every console form carries the CSRF token; a schema adds it to its own fields. */
export function Form<T extends Record<string, TSchema>>(fields: T) {
  return Type.Object({ ...fields, _csrf: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
}

const Empty = Type.Object({}, { additionalProperties: false });

/** A signed-in member's view: every domain call through it acts as that member (audit events). */
function viewOf(request: FastifyRequest): View {
  const state = consoleRequest(request);
  const signedIn = memberOf(request);
  const deps = asMember(state.ctx.deps, signedIn.member, { requestId: request.id });
  return {
    ctx: { ...state.ctx, deps },
    signedIn,
    tenantId: signedIn.member.tenantId,
    csrf: state.csrf ?? '',
  };
}

export async function sendPage(
  reply: FastifyReply,
  view: View,
  page: PageBody,
  started: number,
  status = 200,
) {
  const tenant = await view.ctx.deps.store.tenants.get(view.tenantId);
  const text = renderPage({ ...page, signedIn: view.signedIn, csrf: view.csrf, tenantName: tenant?.name });
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('server-timing', `render;dur=${(performance.now() - started).toFixed(1)}`)
    .type('text/html; charset=utf-8')
    .send(text);
}

/** A signed-in page: visitors without a session are sent to sign in. */
export function page<Q extends TSchema = typeof Empty, P extends TSchema = typeof Empty>(
  app: App,
  path: string,
  schema: { querystring?: Q; params?: P },
  render: (input: Input<Q, P, typeof Empty>) => Promise<PageBody>,
): void {
  const routeSchema: FastifySchema = {
    hide: true,
    querystring: schema.querystring ?? Empty,
    params: schema.params ?? Empty,
  };
  app.get(path, { schema: routeSchema }, async (request, reply) => {
    const started = performance.now();
    if (!consoleRequest(request).signedIn) {
      return reply.redirect(`/console/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    }
    const view = viewOf(request);
    const plain: FastifyRequest = request;
    const out = await render({
      query: plain.query as Static<Q>,
      params: plain.params as Static<P>,
      body: {},
      view,
      request,
      reply,
    });
    return sendPage(reply, view, out, started);
  });
}

/**
 * A form post that changes something: CSRF first, then the role's permission, then one domain
 * call. It answers with a page (e.g. a secret shown once) or a 303 back to a page.
 */
export function action<B extends TSchema, P extends TSchema = typeof Empty>(
  app: App,
  path: string,
  schema: { body: B; params?: P },
  permission: ConsolePermission | null,
  handle: (input: Input<typeof Empty, P, B>) => Promise<Outcome>,
): void {
  app.post(path, {
    schema: { hide: true, body: schema.body, params: schema.params ?? Empty } as FastifySchema,
    preValidation: async (request) => {
      checkCsrf(request);
      const view = viewOf(request);
      if (permission !== null) requirePermission(view.signedIn.member, permission);
    },
    handler: async (request, reply) => {
      const started = performance.now();
      const view = viewOf(request);
      const plain: FastifyRequest = request;
      const out = await handle({
        query: {},
        params: plain.params as Static<P>,
        body: plain.body as Static<B>,
        view,
        request,
        reply,
      });
      if ('redirect' in out) return reply.redirect(out.redirect, 303);
      return sendPage(reply, view, out, started);
    },
  });
}
