/**
 * Logs a person can read: one line per request at info (never Fastify's pair), readable lines on
 * a terminal in development, and no secret in either format.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, createLogger, type LogFormat } from '../src/logger.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

function capturing(lines: string[], format: LogFormat = 'json') {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  return createLogger('info', sink, format);
}

describeEachDialect('request logging', (dialect) => {
  const lines: string[] = [];
  const s = useTestService(dialect, { logger: capturing(lines) });

  it('logs one line per request at info, with method, route, status, time and request id', async () => {
    lines.length = 0;
    const ok = await s.composed.app.inject({
      method: 'GET',
      url: '/v1/keys?limit=2',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    const denied = await s.composed.app.inject({ method: 'GET', url: '/v1/keys' });
    expect([ok.statusCode, denied.statusCode]).toEqual([200, 401]);
    for (const response of [ok, denied]) {
      const requestId = String(response.headers['x-request-id']);
      const mine = lines.map((l) => JSON.parse(l)).filter((e) => e.reqId === requestId);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        level: 30,
        req: { method: 'GET' },
        res: { statusCode: response.statusCode },
      });
      expect(typeof mine[0].responseTime).toBe('number');
      expect(mine[0].msg).toBe(`GET /v1/keys ${response.statusCode}`);
    }
    expect(lines.join('\n')).not.toContain(s.apiKey);
  });
});

describe('log format', () => {
  it('is readable on a terminal outside production, JSON elsewhere, unless PRESENCE_LOG_FORMAT says', () => {
    expect(chooseLogFormat('auto', false, true)).toBe('pretty');
    expect(chooseLogFormat('auto', false, false)).toBe('json');
    expect(chooseLogFormat('auto', true, true)).toBe('json');
    expect(chooseLogFormat('json', false, true)).toBe('json');
    expect(chooseLogFormat('pretty', true, false)).toBe('pretty');
  });

  it('prints one readable line per entry in pretty format, with the same redaction', () => {
    const lines: string[] = [];
    const logger = capturing(lines, 'pretty');
    logger.info({ apiKey: 'presence_sekrit', tenantId: 'ten_1' }, 'development tenant created');
    logger.info(
      { req: { method: 'GET', url: '/v1/keys?token=sekrit2' }, res: { statusCode: 200 } },
      'GET /v1/keys 200',
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: development tenant created/);
    expect(lines[0]).toContain('ten_1');
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(lines.join('\n')).not.toMatch(/sekrit/);
  });
});
