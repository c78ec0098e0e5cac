/**
 * deploy/kubernetes/ as an operator applies it: every object validates against the Kubernetes
 * JSON schemas (kubernetes-models ships them: nothing is fetched), and the wiring holds — probes
 * on /readyz and /healthz, the grace period covering the shutdown delay and drain, migrations in
 * their own Job with the replicas starting with migrations off, every secret a mounted file read
 * through a *_FILE variable the service knows, the metrics port, a PodDisruptionBudget that selects
 * the pods, a trusted-proxy hop count for the Ingress in front. And the service itself refuses a
 * schema that is behind when migrations are off.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Env } from '../src/config/load-config.js';
import { readTrustProxy } from '../src/config/read-trust-proxy.js';
import { SECRET_VARIABLES } from '../src/config/secret-files.js';
import { runCli, serviceBuilt, startServerProcess } from './support/server-process.js';

const DIR = fileURLToPath(new URL('../../../deploy/kubernetes/', import.meta.url));
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'batch/v1 Job': Job,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 Secret': Secret,
  'v1 Service': Service,
};

const objects = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => ({ file, object: d.toJS() as any })),
  );
const byKind = (kind: string) => objects.filter((o) => o.object.kind === kind).map((o) => o.object);
const envOf = (container: any) => new Map<string, string>(container.env.map((e: any) => [e.name, e.value]));

describe('deploy/kubernetes', () => {
  it('validates every object against the Kubernetes schemas, and kustomization lists every file', () => {
    expect(objects.length).toBeGreaterThanOrEqual(5);
    for (const { file, object } of objects) {
      const model = MODELS[`${object.apiVersion} ${object.kind}`];
      expect(model, `${file}: ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new model!(object).validate(), file).not.toThrow();
    }
    const kustomization = readFileSync(join(DIR, 'kustomization.yaml'), 'utf8');
    for (const file of new Set(objects.map((o) => o.file))) expect(kustomization).toContain(`- ${file}`);
  });

  it('rejects a broken object (the validator is not a no-op)', () => {
    const [deployment] = byKind('Deployment');
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    expect(() => new Deployment(broken).validate()).toThrow();
  });

  it('probes readiness and liveness, and the grace period covers the shutdown delay and drain', () => {
    const [deployment] = byKind('Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    const env = envOf(container);
    const shutdownMs =
      Number(env.get('PRESENCE_SHUTDOWN_DELAY_MS')) + Number(env.get('PRESENCE_SHUTDOWN_DRAIN_MS'));
    expect(shutdownMs).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs);
    const port = Number(env.get('PRESENCE_METRICS_LISTEN')!.split(':').pop());
    expect(container.ports.find((p: any) => p.name === 'metrics').containerPort).toBe(port);
    const service = byKind('Service')[0];
    expect(service.spec.ports.map((p: any) => p.targetPort).sort()).toEqual(['http', 'metrics']);
  });

  it('migrates in a Job; the replicas start with migrations off', () => {
    const [job] = byKind('Job');
    expect(job.spec.template.spec.containers[0].command.at(-1)).toBe('migrate');
    const [deployment] = byKind('Deployment');
    expect(envOf(deployment.spec.template.spec.containers[0]).get('PRESENCE_MIGRATE_ON_START')).toBe('false');
  });

  it('reads every secret from a mounted file through a *_FILE variable the service knows', () => {
    const [secret] = byKind('Secret');
    const keys = Object.keys(secret.stringData);
    for (const workload of [...byKind('Deployment'), ...byKind('Job')]) {
      const pod = workload.spec.template.spec;
      const container = pod.containers[0];
      const mount = container.volumeMounts.find((m: any) =>
        pod.volumes.some((v: any) => v.name === m.name && v.secret?.secretName === secret.metadata.name),
      );
      for (const [name, value] of envOf(container)) {
        const secretName = name.replace(/_FILE$/, '');
        if (name.endsWith('_FILE')) {
          expect(SECRET_VARIABLES as readonly string[]).toContain(secretName);
          expect(value.startsWith(`${mount.mountPath}/`)).toBe(true);
          expect(keys).toContain(value.slice(mount.mountPath.length + 1));
        } else {
          expect(Object.keys(Env.properties), name).toContain(name);
          expect(SECRET_VARIABLES as readonly string[], `${name} belongs in the Secret`).not.toContain(name);
        }
      }
    }
    const [deployment] = byKind('Deployment');
    const env = envOf(deployment.spec.template.spec.containers[0]);
    for (const name of [
      'PRESENCE_MASTER_KEY',
      'PRESENCE_ADMIN_TOKEN',
      'PRESENCE_METRICS_TOKEN',
      'DATABASE_URL',
    ])
      expect(env.has(`${name}_FILE`), name).toBe(true);
  });

  it('names the client by the address the Ingress saw: a hop count, never `true` (every hop)', () => {
    const [deployment] = byKind('Deployment');
    const value = envOf(deployment.spec.template.spec.containers[0]).get('PRESENCE_TRUST_PROXY');
    expect(value, 'PRESENCE_TRUST_PROXY is unset: every client shares the Ingress address').toBeDefined();
    expect(readTrustProxy(value)).toBe(1);
  });

  it('keeps a replica through voluntary disruptions', () => {
    const [pdb] = byKind('PodDisruptionBudget');
    const [deployment] = byKind('Deployment');
    expect(pdb.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(deployment.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(deployment.spec.replicas).toBeGreaterThan(pdb.spec.minAvailable);
  });
});

describe.skipIf(!serviceBuilt('migrations off'))('PRESENCE_MIGRATE_ON_START=false', () => {
  it('refuses a schema that is behind, and starts once `presence migrate` ran', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presence-migrate-off-'));
    try {
      const env = { PRESENCE_DATA_DIR: dir, PRESENCE_MIGRATE_ON_START: 'false' };
      await expect(startServerProcess(env)).rejects.toThrow(/schema is behind this build .*presence migrate/);
      expect(runCli(['migrate'], { PRESENCE_DATA_DIR: dir }).code).toBe(0);
      const server = await startServerProcess(env);
      expect(await server.stop()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
