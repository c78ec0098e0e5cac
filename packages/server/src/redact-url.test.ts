import { describe, expect, it } from 'vitest';
import { isCredentialName, redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('redacts credential-looking parameters whatever their case or separators, and keeps the rest', () => {
    expect(redactUrl('/v1/keys?limit=5&apiKey=abc&API_KEY=def&x-token=ghi&cursor=c1')).toBe(
      '/v1/keys?limit=5&apiKey=[redacted]&API_KEY=[redacted]&x-token=[redacted]&cursor=c1',
    );
    expect(redactUrl('/a?access_token=1&client_secret=2&password=3&sig=4&key=5')).toBe(
      '/a?access_token=[redacted]&client_secret=[redacted]&password=[redacted]&sig=[redacted]&key=[redacted]',
    );
  });

  it('handles encoded names, bare names and URLs without a query', () => {
    expect(redactUrl('/a?api%5Fkey=1&token&subject=alice')).toBe(
      '/a?api%5Fkey=[redacted]&token=[redacted]&subject=alice',
    );
    expect(redactUrl('/a?%E0%A4%A=1')).toBe('/a?%E0%A4%A=1');
    expect(redactUrl('/v1/policy')).toBe('/v1/policy');
  });

  it('leaves ordinary API parameters alone', () => {
    for (const name of ['limit', 'cursor', 'subject', 'from', 'to', 'status', 'includeRevoked', 'order']) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });
});
