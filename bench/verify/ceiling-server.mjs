// The ceiling for bench/verify: the same Fastify the service uses (root node_modules), one POST
// route at the verify path that parses the JSON body, runs ONE raw ECDSA P-256 verify with a
// cached KeyObject over a fixed message, and answers JSON. No auth, schema, storage or logging.
// Started by run.mjs as its own process; prints `listening <port>` on stdout.
/* global Buffer, process */
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import Fastify from 'fastify';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
// The shape WebAuthn signs: authenticatorData (37 bytes) || SHA-256(clientDataJSON).
const message = Buffer.concat([Buffer.alloc(37, 7), createHash('sha256').update('client-data').digest()]);
const signature = sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
const key = { key: publicKey, dsaEncoding: 'der' };

const app = Fastify({ logger: false });
app.post('/v1/presence/verify', async (request) => {
  const valid = verify('sha256', message, key, signature);
  return {
    decision: valid ? 'PRESENCE_VERIFIED' : 'SIGNATURE_INVALID',
    challengeId: request.body?.challengeId ?? null,
  };
});

const port = Number(process.env.PORT ?? 0);
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`listening ${app.server.address().port}\n`);
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
