/**
 * The container files cannot be built here (no container daemon), so this checks what can be
 * checked without one: the compose file parses and wires two instances, PostgreSQL, Redis and a
 * readiness-checking balancer; the Dockerfile is multi-stage, drops dev dependencies, runs as a
 * non-root user, checks /readyz, and copies only paths that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

describe('container files', () => {
  it('compose: two Presence instances on PostgreSQL and Redis behind a readiness-checking balancer', () => {
    const compose = parse(read('compose.yaml')) as { services: Record<string, any> };
    const services = compose.services;
    expect(Object.keys(services).sort()).toEqual([
      'balancer',
      'postgres',
      'presence-1',
      'presence-2',
      'redis',
    ]);
    for (const name of ['presence-1', 'presence-2']) {
      const env = services[name].environment;
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(env.REDIS_URL).toBe('redis://redis:6379');
      expect(env.PRESENCE_MASTER_KEY).toContain('PRESENCE_MASTER_KEY');
      expect(services[name].depends_on.postgres.condition).toBe('service_healthy');
      // Behind exactly one proxy, reachable only through it: trust one hop, never every hop.
      expect(env.PRESENCE_TRUST_PROXY).toBe('1');
      expect(services[name].ports).toBeUndefined();
    }
    const haproxy = read('deploy/haproxy.cfg');
    expect(services.balancer.volumes[0]).toContain('./deploy/haproxy.cfg');
    expect(haproxy).toMatch(/option httpchk GET \/readyz/);
    expect(haproxy).toMatch(/server presence-1 presence-1:8080 check/);
    expect(haproxy).toMatch(/server presence-2 presence-2:8080 check/);
  });

  it('haproxy: replaces any X-Forwarded-* the client wrote with what it saw itself', () => {
    const haproxy = read('deploy/haproxy.cfg');
    const frontend = haproxy.slice(haproxy.indexOf('frontend presence'), haproxy.indexOf('backend presence'));
    const lines = frontend.split('\n').map((l) => l.trim());
    const del = lines.indexOf('http-request del-header X-Forwarded-For');
    const set = lines.indexOf('http-request set-header X-Forwarded-For %[src]');
    expect(del).toBeGreaterThan(0);
    expect(set).toBeGreaterThan(del);
    expect(lines).toContain('http-request del-header X-Forwarded-Host');
    expect(lines).toContain('http-request set-header X-Forwarded-Proto %[ssl_fc,iif(https,http)]');
    // `option forwardfor` would append after a client-written value kept elsewhere: not used here.
    expect(haproxy).not.toMatch(/option forwardfor/);
  });

  it('Dockerfile: multi-stage, production dependencies only, non-root, health from /readyz', () => {
    const dockerfile = read('Dockerfile');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    expect(stages[0]).toContain('npm prune --omit=dev');
    const runtime = stages[1]!;
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*\/readyz/m);
    expect(runtime).not.toMatch(/npm (ci|install)/);
    for (const line of dockerfile.split('\n').filter((l) => l.startsWith('COPY ') && !l.includes('--from'))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(existsSync(`${root}${source}`), source).toBe(true);
    }
    expect(read('.dockerignore')).toMatch(/^\*\*\/node_modules$/m);
  });
});
