/** A TCP proxy the test controls: cut() drops every connection and stops listening; restore() listens again. */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address === 'object' && address) port = address.port;
  };
  const cut = async () => {
    const closing = server && new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closing;
    server = undefined;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}
