import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { checkRelyingParty, type RelyingPartyFields } from './check-relying-party.js';

/** The fields a policy is refused on, or [] when it is accepted. */
function refusedFields(policy: RelyingPartyFields): string[] {
  try {
    checkRelyingParty(policy);
    return [];
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.code).toBe('invalid_request');
    return error.fields.map((f) => f.field);
  }
}

describe('checkRelyingParty', () => {
  it.each([
    ['localhost over http', { rpId: 'localhost', allowedOrigins: ['http://localhost:8080'] }],
    ['a registrable domain', { rpId: 'example.com', allowedOrigins: ['https://example.com'] }],
    ['a subdomain origin', { rpId: 'example.co.uk', allowedOrigins: ['https://login.example.co.uk:8443'] }],
    ['a name under a private suffix', { rpId: 'me.github.io', allowedOrigins: ['https://me.github.io'] }],
    ['an app origin', { rpId: 'example.com', allowedOrigins: ['android:apk-key-hash:abc_-1'] }],
    [
      'a declared related origin',
      {
        rpId: 'example.com',
        allowedOrigins: ['https://example.com', 'https://example.de'],
        relatedOrigins: ['https://example.de'],
      },
    ],
  ])('accepts %s', (_name, policy) => {
    expect(refusedFields(policy)).toEqual([]);
  });

  it.each([
    ['an ICANN public suffix', { rpId: 'com', allowedOrigins: ['https://com'] }, ['/rpId']],
    ['a private public suffix', { rpId: 'github.io', allowedOrigins: ['https://github.io'] }, ['/rpId']],
    ['an unlisted single label', { rpId: 'intranet', allowedOrigins: ['https://intranet'] }, ['/rpId']],
    [
      'an IPv4 address',
      { rpId: '127.0.0.1', allowedOrigins: ['http://127.0.0.1'] },
      ['/rpId', '/allowedOrigins/0'],
    ],
    [
      'an origin outside the rpId',
      { rpId: 'evil.com', allowedOrigins: ['http://localhost:8080'] },
      ['/allowedOrigins/0'],
    ],
    [
      'a look-alike suffix',
      { rpId: 'example.com', allowedOrigins: ['https://badexample.com'] },
      ['/allowedOrigins/0'],
    ],
    [
      'http off localhost',
      { rpId: 'example.com', allowedOrigins: ['http://example.com'] },
      ['/allowedOrigins/0'],
    ],
    [
      'an origin not as browsers write it',
      { rpId: 'example.com', allowedOrigins: ['https://Example.com'] },
      ['/allowedOrigins/0'],
    ],
    [
      'a related origin that is not allowed',
      {
        rpId: 'example.com',
        allowedOrigins: ['https://example.com'],
        relatedOrigins: ['https://example.de'],
      },
      ['/relatedOrigins/0'],
    ],
    [
      'a related origin over http',
      { rpId: 'example.com', allowedOrigins: ['http://example.de'], relatedOrigins: ['http://example.de'] },
      ['/allowedOrigins/0', '/relatedOrigins/0'],
    ],
  ])('refuses %s', (_name, policy, fields) => {
    expect(refusedFields(policy)).toEqual(fields);
  });
});
