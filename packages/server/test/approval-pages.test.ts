/**
 * The hosted pages' HTML over HTTP (no browser): the operator's setup message instead of a
 * ceremony that can only fail, the page's security headers and markup rules, on both databases.
 * The ceremonies themselves run in Chromium: test/browser/approval-pages.browser.test.ts.
 */
import { expect, it } from 'vitest';
import { putPolicy as putPolicyVersion } from '../src/domain/policy/put-policy.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

/** The public origin of the test service's links (its console origin). */
const PUBLIC_ORIGIN = 'http://localhost:8080';

describeEachDialect('hosted approval and enrollment pages', (dialect) => {
  const s = useTestService(dialect);
  const page = (url: string) =>
    s.composed.app.inject({ method: 'GET', url: new URL(url, PUBLIC_ORIGIN).pathname });
  const putPolicy = async (rpId: string, allowedOrigins: string[]) =>
    expect((await s.request('PUT', '/v1/policy', { rpId, allowedOrigins })).status).toBe(200);
  /**
   * A policy the API now refuses (docs/security.md, "Where passkeys can work") but that a tenant may
   * hold: stored before that rule, or set from configuration.
   */
  const storeMisfit = (rpId: string, allowedOrigins: string[]) =>
    putPolicyVersion(s.composed.deps, s.tenantId, { rpId, allowedOrigins }, { fromConfiguration: true });
  /** The policy under which passkeys work on the pages' origin. */
  const fitting = () => putPolicy('localhost', [PUBLIC_ORIGIN]);

  async function approvalPage(action: Record<string, unknown>) {
    const created = await s.request('POST', '/v1/approvals', { action, approvers: ['pg-alice'] });
    expect(created.status).toBe(201);
    expect(created.json.approvalUrl.startsWith(`${PUBLIC_ORIGIN}/approve/`)).toBe(true);
    return page(created.json.approvalUrl);
  }

  it('serves the page with a strict CSP: no inline script or style, only its own assets', async () => {
    await fitting();
    const res = await approvalPage({ type: 'payout', note: '<img src=x onerror=alert(1)> style="x"' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'; style-src 'self'/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const body = res.body;
    expect(body).not.toMatch(/<script(?![^>]*\ssrc="\/links\/assets\/)/);
    expect(body).not.toMatch(/<style|<[a-z][^>]*\s(?:style|on[a-z]+)=/i);
    expect(body).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt; style=&quot;x&quot;');
    for (const landmark of ['<header>', '<main>', '<footer>', 'role="status" aria-live="polite"']) {
      expect(body).toContain(landmark);
    }
    expect(body).toContain('>Approve with passkey</button>');
    expect(body).toContain('>Reject with passkey</button>');
    expect(body).toMatch(/<div class="qr-code" role="img" aria-label="QR code of this page's address"><svg/);
    for (const asset of ['links.js', 'links.css', 'simplewebauthn-browser.js']) {
      expect((await page(`/links/assets/${asset}`)).statusCode, asset).toBe(200);
    }
  });

  it("says exactly what the operator must change when the tenant's rpId or origins do not fit", async () => {
    try {
      await storeMisfit('localhost', ['https://other.example']);
      let res = await approvalPage({ type: 'deploy' });
      expect(res.body).toContain('This page cannot ask for passkeys yet');
      expect(res.body).toContain(
        `add &quot;${PUBLIC_ORIGIN}&quot; to the policy&#39;s allowedOrigins (PUT /v1/policy)`,
      );
      expect(res.body).not.toContain('with passkey</button>');

      await storeMisfit('elsewhere.example', [PUBLIC_ORIGIN]);
      res = await approvalPage({ type: 'deploy', n: 2 });
      expect(res.body).toContain('set PRESENCE_PUBLIC_ORIGIN to an origin under elsewhere.example');
      expect(res.body).not.toContain('with passkey</button>');
      const link = await s.request('POST', '/v1/presence/enrollment-links', { subject: 'pg-bob' });
      const enroll = await page(link.json.enrollmentUrl);
      expect(enroll.body).toContain('This page cannot create passkeys yet');
      expect(enroll.body).not.toContain('Enroll a passkey</button>');
    } finally {
      await fitting();
    }
  });

  it('an expired enrollment link answers 410 with a page that says so and no button', async () => {
    const link = await s.request('POST', '/v1/presence/enrollment-links', { subject: 'pg-carol' });
    await fitting();
    const path = link.json.enrollmentUrl as string;
    expect((await page(path)).body).toContain('Enroll a passkey</button>');
    s.clock.advance(86_401);
    try {
      const res = await page(path);
      expect(res.statusCode).toBe(410);
      expect(res.body).toContain('This link was used or has expired');
      expect(res.body).not.toContain('Enroll a passkey</button>');
    } finally {
      s.clock.advance(-86_401);
    }
  });
});
