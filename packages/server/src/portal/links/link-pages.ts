import type { FastifyReply } from 'fastify';
import { readApprovalPageView } from '../../domain/approvals/approval-page.js';
import { readEnrollmentPage } from '../../domain/approvals/enrollment-links.js';
import { DomainError } from '../../domain/errors.js';
import { registerLinkLimit } from '../../http/plugins/rate-limit.js';
import type { RouteDeps } from '../../http/routes/route-deps.js';
import type { App } from '../../http/types.js';
import { addSecurityHeaders } from '../security-headers.js';
import { loadAssets, portalAssetPath, serveAssets, simpleWebAuthnBundlePath } from '../static-assets.js';
import { renderApprovalPage } from './approval-page-view.js';
import { renderEnrollPage } from './enroll-page-view.js';
import { LINK_ASSETS, linkNotFoundPage } from './link-layout.js';
import { createQrCodes } from './qr-code.js';

/** The shape of a link token (LinkTokenParams); anything else gets the friendly 404 page at once. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
type TokenRequest = { Params: { token: string } };

const sendPage = (reply: FastifyReply, status: number, page: string) =>
  reply.code(status).type('text/html; charset=utf-8').send(page);

const isNotFound = (error: unknown) => error instanceof DomainError && error.code === 'not_found';

/**
 * `GET /approve/<token>` and `GET /enroll/<token>`: the hosted pages (docs/api-contract.md#13-approvals), server-rendered
 * from the same state as their JSON (`…/state`), in their own context with the portal's CSP. An
 * unknown token is a friendly HTML 404, never JSON. Pages are never cached nor sent as a referrer.
 */
export async function linkPages(app: App, { links, rateLimits, metrics }: RouteDeps): Promise<void> {
  const assets = await loadAssets(LINK_ASSETS, {
    'links.js': portalAssetPath('links.js'),
    'links.css': portalAssetPath('links.css'),
    'simplewebauthn-browser.js': simpleWebAuthnBundlePath(),
  });
  const qrSvgOf = createQrCodes();
  await app.register(async (child) => {
    addSecurityHeaders(child);
    serveAssets(child, assets);
    await child.register(async (pages) => {
      registerLinkLimit(pages, rateLimits, metrics);
      pages.addHook('onSend', async (_request, reply, payload) => {
        reply.header('cache-control', 'no-store');
        return payload;
      });
      pages.get<TokenRequest>('/approve/:token', { schema: { hide: true } }, async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token)) return sendPage(reply, 404, linkNotFoundPage('approval'));
        try {
          const { state, origin, people } = await readApprovalPageView(request.deps, token, links);
          const qrSvg = await qrSvgOf(`${origin}/approve/${token}`);
          return sendPage(reply, 200, renderApprovalPage({ state, qrSvg, people }));
        } catch (error) {
          if (isNotFound(error)) return sendPage(reply, 404, linkNotFoundPage('approval'));
          throw error;
        }
      });
      pages.get<TokenRequest>('/enroll/:token', { schema: { hide: true } }, async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token)) return sendPage(reply, 404, linkNotFoundPage('enrollment'));
        try {
          const state = await readEnrollmentPage(request.deps, token, links);
          return sendPage(reply, state.used ? 410 : 200, renderEnrollPage(state));
        } catch (error) {
          if (isNotFound(error)) return sendPage(reply, 404, linkNotFoundPage('enrollment'));
          throw error;
        }
      });
    });
  });
}
