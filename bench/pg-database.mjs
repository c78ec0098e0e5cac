// A fresh PostgreSQL database for one benchmark run, on the server at `pgUrl` (an address without
// a database name, e.g. postgres://postgres@127.0.0.1:5432). Every bench that needs one starts
// here; `drop()` removes it WITH (FORCE), since a bench that failed may leave connections open.
/* global process */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function createBenchDatabase(
  pgUrl,
  { prefix = 'presence_bench', synchronousCommit = true } = {},
) {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement) => {
    const client = new pg.Client({ connectionString: `${pgUrl}/postgres`, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  if (!synchronousCommit) {
    await admin(`ALTER DATABASE ${name} SET synchronous_commit = off`).catch(async (error) => {
      await drop();
      throw error;
    });
  }
  return { url: `${pgUrl}/${name}`, name, drop };
}
