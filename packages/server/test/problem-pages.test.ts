/**
 * Problem `type` URIs resolve: every code of the catalogue has a page on the instance that
 * answered, explaining its cause and remedy, and real problems link to it.
 */
import { ERRORS, type ErrorCode } from '@presence/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/test-service.js';

describe('problem type pages', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService('sqlite');
  });
  afterAll(async () => s.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    s.composed.app.inject({ method: 'GET', url, headers });

  it('serves a page for every code in the catalogue, with its cause and remedy', async () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const res = await get(`/problems/${code.replaceAll('_', '-')}`);
      expect(res.statusCode, code).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.body).toContain(`<code>${code}</code>`);
      expect(res.body).toContain('What causes it');
      expect(res.body).toContain(String(ERRORS[code].status));
    }
    const index = await get('/problems');
    expect(index.statusCode).toBe(200);
    for (const code of Object.keys(ERRORS)) expect(index.body).toContain(`>${code}</code>`);
  });

  it('links real problems to those pages on the host the caller used', async () => {
    const res = await s.composed.app.inject({
      method: 'POST',
      url: '/v1/presence/challenge',
      headers: { host: 'presence.example:8443', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(401);
    const type = new URL(res.json().type as string);
    expect(type.host).toBe('presence.example:8443');
    expect(type.pathname).toBe('/problems/unauthorized');
    const page = await get(type.pathname);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('A valid API key is required');
  });

  it('answers an unknown code with a 404 problem', async () => {
    const res = await get('/problems/no-such-code');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it('answers unknown approval and enrollment links with a friendly HTML page, not JSON', async () => {
    for (const url of ['/approve/' + 'A'.repeat(43), '/enroll/' + 'A'.repeat(43), '/approve/short']) {
      const res = await get(url, { accept: 'application/json' });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy'], url).toContain("script-src 'self'");
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.body, url).toMatch(/<h1>This (approval|enrollment) link is not valid<\/h1>/);
      expect(res.body.replace(/\s+/g, ' '), url).toContain('Ask the person who sent it for a new link.');
    }
  });
});
