import type { FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { DomainError } from '../../domain/errors.js';
import type { App } from '../types.js';
import { findDuplicateMember, type DuplicateMember } from './duplicate-members.js';
import { findLoneSurrogate } from './lone-surrogates.js';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The `charset` parameter of a Content-Type header, lower-cased, if any. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * Decodes a JSON body strictly: UTF-8 only (RFC 8259 §8.1), no byte order mark, no invalid byte
 * sequences (Fastify's default would replace them with U+FFFD and silently drop a BOM), and the
 * same prototype-poisoning refusal as Fastify's default parser, and no member name twice in one
 * object, at any depth (JSON.parse would silently keep the last; see duplicate-members.ts), and
 * no string that is not well-formed Unicode (a lone surrogate escape; see lone-surrogates.ts).
 */
export function parseJsonBody(contentType: string | undefined, body: Buffer): unknown {
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    const named = charset.length > 40 ? `${charset.slice(0, 40)}…` : charset;
    throw new DomainError('unsupported_media_type', `charset "${named}" is not supported: send UTF-8 JSON`);
  }
  if (body.length === 0) throw new DomainError('invalid_request', 'the JSON body is empty');
  if (body.subarray(0, 3).equals(UTF8_BOM)) {
    throw new DomainError(
      'invalid_request',
      'the body starts with a byte order mark: send UTF-8 JSON without one',
    );
  }
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch (error) {
    throw new DomainError('invalid_request', 'the body is not valid UTF-8', [], { cause: error });
  }
  let value: unknown;
  try {
    value = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new DomainError('invalid_request', 'the body is not valid JSON', [], { cause: error });
  }
  const duplicate = findDuplicateMember(text, value);
  if (duplicate) throw duplicateMemberProblem(duplicate);
  const lone = findLoneSurrogate(text, value);
  if (lone) {
    const message = `holds the lone surrogate ${lone.escape}: send well-formed Unicode (I-JSON)`;
    throw new DomainError('invalid_request', `body${lone.pointer}: ${message}`, [
      { field: `body${lone.pointer}`, message },
    ]);
  }
  return value;
}

function duplicateMemberProblem({ name, pointer }: DuplicateMember): DomainError {
  if (name === undefined) {
    return new DomainError(
      'invalid_request',
      'body: a member name appears twice in one object, nested too deeply to say which',
    );
  }
  const quoted = JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
  return new DomainError('invalid_request', `body: duplicate member ${quoted}`, [
    { field: `body${pointer}`, message: `has the member ${quoted} more than once` },
  ]);
}

/** Replaces Fastify's JSON parser with the strict one above, for every route of the app. */
export function registerJsonBody(app: App): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer, done: (error: Error | null, value?: unknown) => void) => {
      try {
        done(null, parseJsonBody(request.headers['content-type'], body));
      } catch (error) {
        done(error as Error);
      }
    },
  );
}
