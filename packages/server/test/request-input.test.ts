/**
 * Request input is taken as sent, on both databases: JSON bodies are never coerced to the
 * schema's types (query strings still are), bodies must be UTF-8 JSON without a byte order mark,
 * a non-UTF-8 charset is a 415, and credential-looking query parameters never reach the logs.
 */
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const ACTION = 'ab'.repeat(32);

/** The service's logger, writing its lines into `lines`. */
function capturingLogger(lines: string[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return createLogger('info', sink);
}

describeEachDialect('request input', (dialect) => {
  const lines: string[] = [];
  const s = useTestService(dialect, { logger: capturingLogger(lines) });
  const send = (payload: string | Buffer, contentType = 'application/json', url = '/v1/presence/challenge') =>
    s.composed.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': contentType },
      payload,
    });
  const problemOf = (res: { statusCode: number; headers: Record<string, unknown>; json(): any }) => {
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    return { status: res.statusCode, ...res.json() };
  };

  it('does not coerce body types: a number for a string, a string for an integer, are 400s naming the field', async () => {
    const subject = problemOf(await send(JSON.stringify({ actionHashHex: ACTION, subject: 0 })));
    expect(subject).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(subject.errors.map((e: { field: string }) => e.field)).toContain('body/subject');
    const ttl = problemOf(await send(JSON.stringify({ actionHashHex: ACTION, ttlSeconds: '60' })));
    expect(ttl).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(ttl.errors.map((e: { field: string }) => e.field)).toContain('body/ttlSeconds');
    const flag = problemOf(
      await send(
        JSON.stringify({ url: 'https://hooks.example/x', events: ['receipt.created'], enabled: 'true' }),
        undefined,
        '/v1/webhooks/endpoints',
      ),
    );
    expect(flag.status).toBe(400);
    const good = await send(JSON.stringify({ actionHashHex: ACTION, ttlSeconds: 60 }));
    expect(good.statusCode).toBe(201);
  });

  it('still coerces query strings and path parameters, which are text', async () => {
    for (let i = 0; i < 3; i++)
      await s.request('POST', '/v1/keys', { name: `k${i}`, scopes: ['policy:read'] });
    const page = await s.request('GET', '/v1/keys?limit=2');
    expect(page.status).toBe(200);
    expect(page.json.data).toHaveLength(2);
    expect((await s.request('GET', '/v1/keys?limit=two')).status).toBe(400);
  });

  it('refuses a byte order mark and invalid UTF-8 with a 400, and a non-UTF-8 charset with a 415', async () => {
    const body = Buffer.from(JSON.stringify({ actionHashHex: ACTION }));
    const bom = problemOf(await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body])));
    expect(bom).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(bom.detail).toContain('byte order mark');
    const utf16 = problemOf(await send(Buffer.from(`\uFEFF${body.toString()}`, 'utf16le')));
    expect(utf16).toMatchObject({ status: 400, code: 'invalid_request' });
    const latin1Bytes = Buffer.from(`{"actionHashHex":"${ACTION}","subject":"caf\u00e9"}`, 'latin1');
    const badBytes = problemOf(await send(latin1Bytes));
    expect(badBytes).toMatchObject({
      status: 400,
      code: 'invalid_request',
      detail: 'the body is not valid UTF-8',
    });
    const charset = problemOf(await send(body, 'application/json; charset=iso-8859-1'));
    expect(charset).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(charset.detail).toContain('iso-8859-1');
    expect(problemOf(await send(body, 'application/json; charset=utf-16'))).toMatchObject({ status: 415 });
    expect((await send(body, 'application/json; charset=UTF-8')).statusCode).toBe(201);
    expect((await send(body, 'application/json;charset="utf-8"')).statusCode).toBe(201);
    expect(problemOf(await send('{"__proto__": {"x": 1}}'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
  });

  it('never logs the value of a credential-looking query parameter', async () => {
    lines.length = 0;
    const secrets = ['sekrit-apikey-1', 'sekrit-token-2', 'sekrit-key-3', 'sekrit-secret-4', 'sekrit-at-5'];
    const query = `apiKey=${secrets[0]}&token=${secrets[1]}&key=${secrets[2]}&client_secret=${secrets[3]}&access_token=${secrets[4]}&limit=5`;
    for (const url of [`/v1/keys?${query}`, `/v1/policy?${query}`, `/nowhere?${query}`]) {
      await s.composed.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${s.apiKey}` } });
      await s.composed.app.inject({ method: 'GET', url });
    }
    const logged = lines.join('');
    expect(logged).toContain('/v1/keys?');
    expect(logged).toContain('limit=5');
    expect(logged).toContain('apiKey=[redacted]');
    for (const secret of secrets) expect(logged).not.toContain(secret);
    expect(logged).not.toContain(s.apiKey);
  });
});
