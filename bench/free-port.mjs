// A TCP port free on 127.0.0.1 right now, for a bench to start a server process on.
import { createServer } from 'node:net';

export async function freePort() {
  const server = createServer();
  await new Promise((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}
