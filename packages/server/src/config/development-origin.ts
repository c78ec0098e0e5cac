import { isIP } from 'node:net';

/** Listening on every interface or a loopback address: the browser reaches it as `localhost`. */
const LOCAL_HOSTS = new Set(['', 'localhost', '0.0.0.0', '::', '127.0.0.1', '::1']);

/**
 * The development origin when PRESENCE_DEV_ORIGIN is unset: `http://<host>:<PORT>`, so `PORT=3000
 * npm start` gives a tenant, an invite and a demo on :3000. An IP address is no WebAuthn rpId, so
 * any address (and every wildcard) becomes `localhost`; a host name is kept.
 */
export function developmentOrigin(host: string, port: number): string {
  const name = LOCAL_HOSTS.has(host) || isIP(host) !== 0 ? 'localhost' : host;
  return `http://${name}:${port}`;
}
