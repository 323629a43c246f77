import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { Pool } from 'pg';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../libs/shared/src/config';
import type { Database } from '../../libs/shared/src/db';
import { InProcessBus } from '../../libs/shared/src/events';
import type { AppDeps, ServiceDefinition } from '../../libs/shared/src/service';
import { captureLogger, registeredPaths } from '../../libs/shared/src/testing';
import { services } from '../dev/services';

/*
 * deploy/k8s, rendered as `kubectl kustomize` would (the subset kustomization.yaml uses:
 * resources, namespace, labels with includeTemplates, images; no kubectl or cluster here)
 * and held to the services it deploys: every manifest parses; each Deployment runs its
 * service's image on the port its config listens on, probes paths its app serves, and is
 * given every variable its config schema reads; the HPAs, PDBs, Ingress, migration Job and
 * NATS StatefulSet are there; the NetworkPolicies, evaluated as Kubernetes does, allow exactly
 * the paths the platform needs.
 */
const K8S = join(__dirname, '..', '..', 'deploy', 'k8s');

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readDocs(file: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(join(K8S, file), 'utf8'));
  return docs
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS() as Obj;
    })
    .filter((doc) => doc !== null);
}

const CLUSTER_SCOPED = new Set(['Namespace']);

function render(): { kustomization: Obj; objects: Obj[] } {
  const kustomization = readDocs('kustomization.yaml')[0];
  const objects = (kustomization.resources as string[]).flatMap(readDocs);
  for (const object of objects) {
    if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
    for (const { pairs, includeTemplates } of kustomization.labels ?? []) {
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
      const template = object.spec?.template;
      if (includeTemplates && template) {
        template.metadata = template.metadata ?? {};
        template.metadata.labels = { ...template.metadata.labels, ...pairs };
      }
    }
    const podSpec = object.spec?.template?.spec;
    for (const container of [...(podSpec?.containers ?? []), ...(podSpec?.initContainers ?? [])]) {
      const [name, tag] = String(container.image).split(':');
      const image = (kustomization.images as Obj[]).find((i) => i.name === name);
      if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
    }
  }
  return { kustomization, objects };
}

const { kustomization, objects } = render();
const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const found = byKind(kind).find((o) => o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
/** The Secrets the Deployments refer to, from the template (the real ones are not in git). */
const secrets = readDocs('secret.template.yaml');

const NAMES = services.map((s) => s.name);
const SCALED = ['gateway', 'webhook-ingest', 'automation'];

/**
 * Every variable a service's config schema reads, but the `*_PREVIOUS` ones: those are set only
 * while a secret is being rotated (docs/operations.md), and the Secret template names them in
 * comments instead of with a placeholder that would fail the start.
 */
function variablesOf(service: ServiceDefinition): string[] {
  return Object.keys((service.configSchema as unknown as { shape: object }).shape).filter(
    (variable) => !variable.endsWith('_PREVIOUS'),
  );
}

/** The variables a container is given: env entries and every key of its envFrom sources. */
function providedTo(container: Obj): Map<string, string> {
  const provided = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const source = from.configMapRef
      ? named('ConfigMap', from.configMapRef.name).data
      : secrets.find((s) => s.metadata.name === from.secretRef.name)?.stringData;
    if (!source) throw new Error(`envFrom names ${JSON.stringify(from)}, which does not exist`);
    for (const [key, value] of Object.entries(source)) provided.set(key, String(value));
  }
  for (const env of container.env ?? []) provided.set(env.name, String(env.value ?? ''));
  return provided;
}

/** A pool that never reaches a database (port 9 on loopback refuses), for building apps. */
function offlineDeps(): AppDeps {
  const pool = new Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none' });
  return {
    logger: captureLogger('silent').logger,
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    pool,
    pingDatabase: async () => undefined,
    bus: new InProcessBus({ logger: captureLogger('silent').logger }),
    version: 'test',
    internalTokenSecret: 'x'.repeat(32),
    bodyLimitBytes: 1024,
  };
}

describe('deploy/k8s (kustomize)', () => {
  it('lists every manifest of the directory but the Secret template', () => {
    const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml'));
    expect([...(kustomization.resources as string[])].sort()).toEqual(
      files.filter((f) => !['kustomization.yaml', 'secret.template.yaml'].includes(f)).sort(),
    );
    for (const object of objects) {
      expect(object).toMatchObject({
        apiVersion: expect.any(String),
        kind: expect.any(String),
        metadata: { name: expect.any(String) },
      });
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('crm');
      expect(object.metadata.labels['app.kubernetes.io/part-of']).toBe('crm');
    }
    // Names are unique per kind.
    const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(keys.length).toBe(new Set(keys).size);
  });

  describe.each(services.map((s) => [s.name, s] as [string, ServiceDefinition]))(
    '%s',
    (name, service) => {
      const deployment = named('Deployment', name);
      const pod = deployment.spec.template;
      const container = pod.spec.containers[0];
      const provided = providedTo(container);
      // The config the pod starts with: the ConfigMaps' values, stand-ins for the Secrets
      // (the template's placeholders are invalid on purpose).
      const secretKeys = providedTo({
        envFrom: container.envFrom.filter((e: Obj) => e.secretRef),
      });
      const config = loadConfig(name, service.configSchema, {
        ...Object.fromEntries([...provided].filter(([key]) => !secretKeys.has(key))),
        DATABASE_URL: 'postgres://crm@postgres.example:5432/crm',
        INTERNAL_TOKEN_SECRET: 'a-stand-in-internal-token-secret-0123456789',
      });
      const port = service.port(config);

      it('runs its image on the port its config listens on, behind a Service of that port', () => {
        expect(pod.spec.containers).toHaveLength(1);
        const image = (kustomization.images as Obj[]).find((i) => i.name === `crm/${name}`)!;
        expect(container.image).toBe(`${image.newName}:${image.newTag}`);
        expect(image.newName).toMatch(new RegExp(`/crm/${name}$`));
        expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
        const svc = named('Service', name);
        expect(svc.spec.selector).toEqual(deployment.spec.selector.matchLabels);
        expect(svc.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http' }]);
        // The pods carry the selector's labels.
        expect(pod.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
      });

      it('is given every variable its config reads, and none it does not', () => {
        const reads = variablesOf(service);
        expect(reads.filter((v) => !provided.has(v))).toEqual([]);
        expect(
          [...provided.keys()].filter((v) => !reads.includes(v) && v !== 'NODE_OPTIONS'),
        ).toEqual([]);
        // What a service started alone requires comes from the Secret.
        const fromSecret = providedTo({
          envFrom: container.envFrom.filter((e: Obj) => e.secretRef),
        });
        for (const v of ['DATABASE_URL', 'INTERNAL_TOKEN_SECRET'])
          expect(fromSecret.has(v)).toBe(true);
        expect(provided.get('NATS_URL')).toBe('nats://nats:4222');
      });

      it('probes /health (liveness, startup) and /ready (readiness), both served by its app', () => {
        const probes = {
          startup: container.startupProbe?.httpGet,
          liveness: container.livenessProbe?.httpGet,
          readiness: container.readinessProbe?.httpGet,
        };
        expect(probes).toEqual({
          startup: { path: '/health', port: 'http' },
          liveness: { path: '/health', port: 'http' },
          readiness: { path: '/ready', port: 'http' },
        });
        const app = service.createApp(
          offlineDeps(),
          loadConfig(name, service.configSchema, { SESSION_CACHE_TTL_MS: '0' }),
        );
        const served = registeredPaths(app)
          .filter((p) => p.kind === 'route')
          .map((p) => p.path);
        expect(served).toEqual(expect.arrayContaining(['/health', '/ready']));
      });

      it('has requests and limits, runs unprivileged, and drains before SIGKILL', () => {
        expect(container.resources).toEqual({
          requests: { cpu: expect.anything(), memory: expect.any(String) },
          limits: { cpu: expect.anything(), memory: expect.any(String) },
        });
        expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
        expect(container.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
        });
        const preStopSeconds = Number(container.lifecycle.preStop.exec.command[1]);
        expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(
          preStopSeconds + config.SHUTDOWN_TIMEOUT_MS / 1000,
        );
      });

      it(`${SCALED.includes(name) ? 'scales with an HPA' : 'has a fixed replica count'} and a PodDisruptionBudget`, () => {
        const hpa = byKind('HorizontalPodAutoscaler').find((h) => h.metadata.name === name);
        if (SCALED.includes(name)) {
          expect(hpa?.spec.scaleTargetRef).toEqual({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name,
          });
          expect(hpa?.spec.minReplicas).toBeGreaterThanOrEqual(2);
          expect(deployment.spec.replicas).toBeUndefined();
        } else {
          expect(hpa).toBeUndefined();
          expect(deployment.spec.replicas).toBe(1);
        }
        const pdb = named('PodDisruptionBudget', name);
        expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
        // A budget a drain can satisfy: never minAvailable >= the replicas there can be.
        if (pdb.spec.minAvailable !== undefined) {
          expect(pdb.spec.minAvailable).toBeLessThan(
            hpa?.spec.minReplicas ?? deployment.spec.replicas,
          );
        }
      });
    },
  );

  it('gives every variable of the configuration reference to the services that read it', () => {
    const reference = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    const rows = reference
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    let checked = 0;
    for (const [, variables, , readBy] of rows) {
      const readers = readBy.includes('every service')
        ? NAMES
        : NAMES.filter((n) => new RegExp(`(^|[ ,])${n}($|[ ,])`).test(readBy));
      const listed = [...variables.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]);
      for (const variable of listed.filter((v) => !v.endsWith('_PREVIOUS'))) {
        for (const reader of readers) {
          const container = named('Deployment', reader).spec.template.spec.containers[0];
          expect({ variable, reader, provided: providedTo(container).has(variable) }).toEqual({
            variable,
            reader,
            provided: true,
          });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('names every rotation variable (`*_PREVIOUS`) in the configuration reference and the Secret template', () => {
    const table = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    const template = readFileSync(join(K8S, 'secret.template.yaml'), 'utf8');
    const rotation = [
      ...new Set(
        services.flatMap((service) =>
          Object.keys((service.configSchema as unknown as { shape: object }).shape),
        ),
      ),
    ].filter((variable) => variable.endsWith('_PREVIOUS'));
    expect(rotation.length).toBeGreaterThanOrEqual(8);
    for (const variable of rotation) {
      expect({ variable, inReference: table.includes(`\`${variable}\``) }).toEqual({
        variable,
        inReference: true,
      });
      expect({ variable, inTemplate: template.includes(variable) }).toEqual({
        variable,
        inTemplate: true,
      });
    }
  });

  it('runs the migrations as a Job from the gateway image, with the Secret database URL', () => {
    const job = named('Job', 'crm-db-migrate');
    const container = job.spec.template.spec.containers[0];
    expect(container.image).toBe(
      named('Deployment', 'gateway').spec.template.spec.containers[0].image,
    );
    expect(container.command).toEqual(['node', '/app/libs/shared/dist/db/migrate-cli.js']);
    expect(container.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'crm-secrets', key: 'DATABASE_URL' } },
    });
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('routes the Ingress to the gateway only', () => {
    const ingresses = byKind('Ingress');
    expect(ingresses).toHaveLength(1);
    const backends = ingresses[0].spec.rules.flatMap((rule: Obj) =>
      rule.http.paths.map((path: Obj) => path.backend.service),
    );
    expect(backends).toEqual([{ name: 'gateway', port: { name: 'http' } }]);
  });

  it('runs NATS JetStream as a 3-node StatefulSet with a volume each, reached at NATS_URL', () => {
    const nats = named('StatefulSet', 'nats');
    expect(nats.spec.replicas).toBe(3);
    expect(nats.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const conf = named('ConfigMap', 'nats-config').data['nats.conf'] as string;
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir: \/data/s);
    const routes = [...conf.matchAll(/nats:\/\/(nats-\d)\.nats-headless:6222/g)].map((m) => m[1]);
    expect(routes).toEqual(['nats-0', 'nats-1', 'nats-2']);
    expect(named('Service', 'nats-headless').spec.clusterIP).toBe('None');
    expect(nats.spec.serviceName).toBe('nats-headless');
    const client = named('Service', 'nats');
    expect(client.spec.selector).toEqual(nats.spec.selector.matchLabels);
    expect(client.spec.ports).toEqual([{ name: 'client', port: 4222, targetPort: 'client' }]);
    expect(named('ConfigMap', 'crm-config').data.NATS_URL).toBe('nats://nats:4222');
    expect(named('PodDisruptionBudget', 'nats').spec.maxUnavailable).toBe(1);
  });

  describe('NetworkPolicies', () => {
    interface Peer {
      namespace: string;
      labels?: Record<string, string>;
      ip?: string;
    }
    const NAMESPACE_LABELS = (ns: string) => ({ 'kubernetes.io/metadata.name': ns });
    const policies = byKind('NetworkPolicy');

    function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
      if (!selector) return true;
      const matchLabels = Object.entries(selector.matchLabels ?? {});
      if (!matchLabels.every(([k, v]) => labels[k] === v)) return false;
      return (selector.matchExpressions ?? []).every((e: Obj) => {
        if (e.operator === 'In') return e.values.includes(labels[e.key]);
        if (e.operator === 'NotIn') return !e.values.includes(labels[e.key]);
        if (e.operator === 'Exists') return e.key in labels;
        return !(e.key in labels);
      });
    }
    function ipIn(ip: string, cidr: string): boolean {
      const [base, bits] = cidr.split('/');
      const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
      const size = 2 ** (32 - Number(bits));
      return Math.floor(n(ip) / size) === Math.floor(n(base) / size);
    }
    function peerMatches(rulePeer: Obj, peer: Peer, policyNamespace: string): boolean {
      if (rulePeer.ipBlock) {
        return (
          !!peer.ip &&
          ipIn(peer.ip, rulePeer.ipBlock.cidr) &&
          !(rulePeer.ipBlock.except ?? []).some((c: string) => ipIn(peer.ip!, c))
        );
      }
      if (!peer.labels) return false;
      const nsOk = rulePeer.namespaceSelector
        ? selects(rulePeer.namespaceSelector, NAMESPACE_LABELS(peer.namespace))
        : peer.namespace === policyNamespace;
      return nsOk && selects(rulePeer.podSelector, peer.labels);
    }
    function portMatches(ports: Obj[] | undefined, port: number, protocol: string): boolean {
      return (
        !ports ||
        ports.some(
          (p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || p.port === port),
        )
      );
    }
    /** Whether `direction` traffic of `pod` with `other` on port is allowed (Kubernetes' rules). */
    function allowed(
      direction: 'Ingress' | 'Egress',
      pod: Peer,
      other: Peer,
      port: number,
      protocol = 'TCP',
    ) {
      if (!pod.labels || pod.namespace !== 'crm') return true; // not governed by these policies
      const applying = policies.filter(
        (p) =>
          selects(p.spec.podSelector, pod.labels!) &&
          (p.spec.policyTypes as string[]).includes(direction),
      );
      if (applying.length === 0) return true;
      const key = direction === 'Ingress' ? 'ingress' : 'egress';
      const peers = direction === 'Ingress' ? 'from' : 'to';
      return applying.some((p) =>
        (p.spec[key] ?? []).some(
          (rule: Obj) =>
            (!rule[peers] ||
              rule[peers].some((peer: Obj) => peerMatches(peer, other, p.metadata.namespace))) &&
            portMatches(rule.ports, port, protocol),
        ),
      );
    }
    const canConnect = (from: Peer, to: Peer, port: number, protocol = 'TCP') =>
      allowed('Egress', from, to, port, protocol) && allowed('Ingress', to, from, port, protocol);

    const podOf = (kind: string, name: string): Peer => ({
      namespace: 'crm',
      labels: named(kind, name).spec.template.metadata.labels,
    });
    const portOf = (name: string) => named('Service', name).spec.ports[0].port as number;
    const gateway = podOf('Deployment', 'gateway');
    const backends = NAMES.filter((n) => n !== 'gateway');
    const natsPod = podOf('StatefulSet', 'nats');
    const migrationJob = podOf('Job', 'crm-db-migrate');
    const ingressController: Peer = {
      namespace: 'ingress-nginx',
      labels: { app: 'ingress-nginx' },
    };
    const postgres: Peer = { namespace: 'postgres', labels: { app: 'postgresql' } };
    const collector: Peer = { namespace: 'observability', labels: { app: 'otel-collector' } };
    const dns: Peer = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
    const elsewhere: Peer = { namespace: 'other', labels: { app: 'intruder' } };
    const publicHost: Peer = { namespace: '', ip: '203.0.113.10' };
    const privateHost: Peer = { namespace: '', ip: '10.20.30.40' };

    it('let the ingress controller reach the gateway, and nothing else reach it', () => {
      expect(canConnect(ingressController, gateway, 8080)).toBe(true);
      expect(canConnect(elsewhere, gateway, 8080)).toBe(false);
      for (const b of backends)
        expect(canConnect(ingressController, podOf('Deployment', b), portOf(b))).toBe(false);
    });

    it.each(backends)('let only the gateway reach %s', (backend) => {
      const pod = podOf('Deployment', backend);
      expect(canConnect(gateway, pod, portOf(backend))).toBe(true);
      for (const other of backends.filter((b) => b !== backend)) {
        expect({
          other,
          allowed: canConnect(podOf('Deployment', other), pod, portOf(backend)),
        }).toEqual({
          other,
          allowed: false,
        });
      }
      expect(canConnect(elsewhere, pod, portOf(backend))).toBe(false);
      expect(canConnect(natsPod, pod, portOf(backend))).toBe(false);
    });

    it.each(NAMES)('let %s reach DNS, Postgres, NATS and the collector', (name) => {
      const pod = podOf('Deployment', name);
      expect(canConnect(pod, dns, 53, 'UDP')).toBe(true);
      expect(canConnect(pod, postgres, 5432)).toBe(true);
      expect(canConnect(pod, natsPod, 4222)).toBe(true);
      expect(canConnect(pod, collector, 4318)).toBe(true);
      expect(canConnect(pod, elsewhere, 80)).toBe(false);
    });

    it('let automation alone reach public addresses, and none reach private ones', () => {
      for (const name of NAMES) {
        const pod = podOf('Deployment', name);
        expect({ name, public: canConnect(pod, publicHost, 443) }).toEqual({
          name,
          public: name === 'automation',
        });
        expect(canConnect(pod, privateHost, 443)).toBe(false);
      }
    });

    it('let the migration Job reach Postgres, and the NATS nodes form their cluster', () => {
      expect(canConnect(migrationJob, postgres, 5432)).toBe(true);
      expect(canConnect(migrationJob, natsPod, 4222)).toBe(false);
      expect(canConnect(natsPod, natsPod, 6222)).toBe(true);
      expect(canConnect(natsPod, dns, 53, 'UDP')).toBe(true);
      expect(canConnect(elsewhere, natsPod, 4222)).toBe(false);
      expect(canConnect(natsPod, publicHost, 443)).toBe(false);
    });
  });
});
