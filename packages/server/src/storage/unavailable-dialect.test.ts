import { describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import { isDatabaseUnavailable } from './unavailable-dialect.js';

const coded = (code: string) => Object.assign(new Error('x'), { code });

describe('isDatabaseUnavailable', () => {
  it('classifies PostgreSQL outages by SQLSTATE, socket code, or a pg error with no SQLSTATE', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET']) {
      expect(isDatabaseUnavailable('postgres', coded(code)), code).toBe(true);
    }
    expect(isDatabaseUnavailable('postgres', new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('leaves query errors, programming errors and domain errors alone', () => {
    for (const code of ['23505', '42P01', '40001', '22P02']) {
      expect(isDatabaseUnavailable('postgres', coded(code)), code).toBe(false);
    }
    expect(isDatabaseUnavailable('postgres', new TypeError('bad parameter'))).toBe(false);
    expect(isDatabaseUnavailable('postgres', new DomainError('not_found', 'x'))).toBe(false);
    expect(isDatabaseUnavailable('postgres', 'not an error')).toBe(false);
  });

  it('classifies SQLite lock and I/O conditions, not constraint errors', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_LOCKED',
      'SQLITE_IOERR_WRITE',
      'SQLITE_FULL',
    ]) {
      expect(isDatabaseUnavailable('sqlite', coded(code)), code).toBe(true);
    }
    expect(isDatabaseUnavailable('sqlite', coded('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
    expect(isDatabaseUnavailable('sqlite', new Error('plain'))).toBe(false);
  });
});
