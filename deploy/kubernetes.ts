/**
 * The Kubernetes manifests, rendered from the topology (deploy/topology.ts): the service as a Deployment
 * (replicas, probes, resources, grace period), its Service, PodDisruptionBudget, HorizontalPodAutoscaler
 * and ConfigMap; PgBouncer (transaction mode, the ini deploy/pgbouncer.ts renders for the test bed) and
 * one Redis; a Secret template without secrets. The objects are built with kubernetes-models' classes:
 * TypeScript refuses a misspelt field, and `validate()` checks each against the Kubernetes API schema.
 *
 * Kubernetes' Service takes HAProxy's place (the test bed's balancer): the readiness probe polls the same
 * path at the same interval and failure count, so a node leaves the rotation as fast as it does there.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { IIoK8sApiCoreV1Container } from 'kubernetes-models/v1/Container';
import type { IIoK8sApiCoreV1PodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { IIoK8sApiCoreV1SecurityContext } from 'kubernetes-models/v1/SecurityContext';
import type { IIoK8sApiCoreV1Volume } from 'kubernetes-models/v1/Volume';
import type { IIoK8sApiAppsV1DeploymentStrategy } from 'kubernetes-models/apps/v1/DeploymentStrategy';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { renderPgbouncerIni, renderPgbouncerUserlist } from './pgbouncer.ts';
import type { Topology } from './topology.ts';

/** One Kubernetes object as the renderer writes it. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string };
  validate(): void;
  toJSON(): unknown;
}

export interface KubernetesImages {
  service: string;
  pgbouncer: string;
  redis: string;
}

/** The manifests' files (under deploy/kubernetes/) and the objects each holds, in order. */
export interface KubernetesFiles {
  'content-firewall.yaml': KubernetesObject[];
  'pgbouncer.yaml': KubernetesObject[];
  'redis.yaml': KubernetesObject[];
  /** Not in kustomization.yaml: copied, filled in and applied by the operator. */
  'secrets.example.yaml': KubernetesObject[];
}

const NAME = 'content-firewall';
const PART_OF = { 'app.kubernetes.io/part-of': NAME };
const labels = (name: string, component: string) => ({
  'app.kubernetes.io/name': name,
  'app.kubernetes.io/component': component,
  ...PART_OF,
});

/** Where DATA_DIR points in the image (deploy/Dockerfile): an emptyDir, as is /tmp. */
const DATA_DIR = '/var/lib/content-firewall';
const APP_UID = 1000; // the node image's `node` user (deploy/Dockerfile USER)
const PGBOUNCER_UID = 10001; // deploy/pgbouncer/Dockerfile
const PLACEHOLDER = 'REPLACE-ME'; // shorter than SECRET_KEY's 32 characters: an unfilled template cannot start

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** Whole CPUs of a Kubernetes quantity (`2`, `1500m`), at least 1: the model threads per node. */
export function wholeCpus(quantity: string): number {
  const n = quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`kubernetes: ${quantity} is not a CPU quantity`);
  return Math.max(1, Math.floor(n));
}

/**
 * Seconds between SIGTERM and SIGKILL: the readiness delay, the drain, and 5 s for the process to exit.
 * No preStop hook: the service itself keeps serving while not ready for the readiness delay.
 */
export function terminationGraceSeconds(topology: Topology): number {
  const { readinessDelayMs, timeoutMs } = topology.service.shutdown;
  return seconds(readinessDelayMs + timeoutMs) + 5;
}

const restricted: IIoK8sApiCoreV1SecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};
const podSecurity = (uid: number): IIoK8sApiCoreV1PodSecurityContext => ({
  runAsNonRoot: true,
  runAsUser: uid,
  runAsGroup: uid,
  fsGroup: uid,
  seccompProfile: { type: 'RuntimeDefault' },
});

/** The service's environment (the ConfigMap): the topology's, the shutdown timings, Redis and metrics. */
export function serviceEnvironment(topology: Topology): Record<string, string> {
  return {
    ...topology.service.env,
    SHUTDOWN_READINESS_DELAY_MS: String(topology.service.shutdown.readinessDelayMs),
    SHUTDOWN_TIMEOUT_MS: String(topology.service.shutdown.timeoutMs),
    DATA_DIR,
  };
}

/** Every object, by file. */
export function kubernetesObjects(topology: Topology, images: KubernetesImages): KubernetesFiles {
  return {
    'content-firewall.yaml': serviceObjects(topology, images.service),
    'pgbouncer.yaml': pgbouncerObjects(topology, images.pgbouncer),
    'redis.yaml': redisObjects(topology, images.redis),
    'secrets.example.yaml': secretObjects(topology),
  };
}

function serviceObjects(topology: Topology, image: string): KubernetesObject[] {
  const { service, balancer } = topology;
  const selector = { 'app.kubernetes.io/name': NAME };
  const container: IIoK8sApiCoreV1Container = {
    name: NAME,
    image,
    ports: [{ name: 'http', containerPort: service.port, protocol: 'TCP' }],
    envFrom: [{ configMapRef: { name: `${NAME}-env` } }, { secretRef: { name: `${NAME}-secrets` } }],
    // Node 20 counts the host's CPUs, not the container's limit: one model thread per CPU of the limit.
    env: [{ name: 'WORKER_THREADS', value: String(wholeCpus(service.resources.cpu.limit)) }],
    resources: {
      requests: { cpu: service.resources.cpu.request, memory: service.resources.memory.request },
      limits: { cpu: service.resources.cpu.limit, memory: service.resources.memory.limit },
    },
    // Start-up loads the models (about 2 s on the test machine): liveness waits for it.
    startupProbe: {
      httpGet: { path: service.livePath, port: 'http' },
      periodSeconds: 2,
      failureThreshold: 30,
      timeoutSeconds: 2,
    },
    // The balancer's check: same path, interval and counts as HAProxy's in the test bed.
    readinessProbe: {
      httpGet: { path: service.readyPath, port: 'http' },
      periodSeconds: seconds(balancer.checkIntervalMs),
      failureThreshold: balancer.fall,
      successThreshold: balancer.rise,
      timeoutSeconds: seconds(balancer.timeouts.connectMs),
    },
    livenessProbe: {
      httpGet: { path: service.livePath, port: 'http' },
      periodSeconds: 10,
      failureThreshold: 3,
      timeoutSeconds: 2,
    },
    securityContext: restricted,
    volumeMounts: [
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'data', mountPath: DATA_DIR },
    ],
  };
  return [
    new ConfigMap({
      metadata: { name: `${NAME}-env`, labels: labels(NAME, 'api') },
      // No HAProxy here to replace X-Forwarded-For: trust it only once your ingress overwrites it.
      data: { ...serviceEnvironment(topology), TRUST_PROXY: 'false' },
    }),
    new Service({
      metadata: { name: NAME, labels: labels(NAME, 'api') },
      spec: {
        type: 'ClusterIP',
        selector,
        ports: [{ name: 'http', port: balancer.port, targetPort: 'http', protocol: 'TCP' }],
      },
    }),
    new Deployment({
      metadata: { name: NAME, labels: labels(NAME, 'api') },
      spec: {
        replicas: service.nodes,
        revisionHistoryLimit: 5,
        selector: { matchLabels: selector },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: service.maxUnavailable, maxSurge: 1 } },
        template: {
          metadata: { labels: labels(NAME, 'api') },
          spec: {
            terminationGracePeriodSeconds: terminationGraceSeconds(topology),
            securityContext: podSecurity(APP_UID),
            automountServiceAccountToken: false,
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'kubernetes.io/hostname',
                whenUnsatisfiable: 'ScheduleAnyway',
                labelSelector: { matchLabels: selector },
              },
            ],
            containers: [container],
            volumes: [
              { name: 'tmp', emptyDir: {} },
              { name: 'data', emptyDir: {} },
            ],
          },
        },
      },
    }),
    new PodDisruptionBudget({
      metadata: { name: NAME, labels: labels(NAME, 'api') },
      spec: { maxUnavailable: service.maxUnavailable, selector: { matchLabels: selector } },
    }),
    new HorizontalPodAutoscaler({
      metadata: { name: NAME, labels: labels(NAME, 'api') },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: NAME },
        minReplicas: service.autoscale.min,
        maxReplicas: service.autoscale.max,
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: service.autoscale.targetCpuPercent },
            },
          },
        ],
      },
    }),
  ];
}

/** A single-replica part the nodes connect to (PgBouncer, Redis). */
interface BackingPart {
  name: string;
  /** Its `app.kubernetes.io/component`. */
  component: string;
  image: string;
  /** The one port, named, on the Service and the container alike. */
  port: { name: string; number: number };
  /** The uid its image runs as. */
  uid: number;
  /** The container beyond its name, image, port and the restricted security context. */
  container: Omit<IIoK8sApiCoreV1Container, 'name' | 'image' | 'ports' | 'securityContext'>;
  volumes: IIoK8sApiCoreV1Volume[];
  strategy?: IIoK8sApiAppsV1DeploymentStrategy;
}

/** A backing part's ClusterIP Service and its one-replica Deployment. */
function backingPartObjects(part: BackingPart): KubernetesObject[] {
  const { name, component, port } = part;
  const { args, volumeMounts, ...probesAndResources } = part.container;
  const selector = { 'app.kubernetes.io/name': name };
  return [
    new Service({
      metadata: { name, labels: labels(name, component) },
      spec: {
        type: 'ClusterIP',
        selector,
        ports: [{ name: port.name, port: port.number, targetPort: port.name, protocol: 'TCP' }],
      },
    }),
    new Deployment({
      metadata: { name, labels: labels(name, component) },
      spec: {
        replicas: 1,
        ...(part.strategy ? { strategy: part.strategy } : {}),
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: labels(name, component) },
          spec: {
            securityContext: podSecurity(part.uid),
            automountServiceAccountToken: false,
            containers: [
              {
                name,
                image: part.image,
                args,
                ports: [{ name: port.name, containerPort: port.number, protocol: 'TCP' }],
                ...probesAndResources,
                securityContext: restricted,
                volumeMounts,
              },
            ],
            volumes: part.volumes,
          },
        },
      },
    }),
  ];
}

function pgbouncerObjects(topology: Topology, image: string): KubernetesObject[] {
  const name = 'pgbouncer';
  const ini = renderPgbouncerIni(topology, {
    // A Service named `postgres` in the namespace (ExternalName to a managed database, or an in-cluster
    // PostgreSQL's own): docs/operators/deployment.md.
    postgresHost: 'postgres',
    authType: 'scram-sha-256',
    authFile: '/etc/pgbouncer/secret/userlist.txt',
    // The database is across the cluster network: TLS or nothing.
    serverTlsMode: 'require',
  });
  return [
    new ConfigMap({
      metadata: { name: `${name}-config`, labels: labels(name, 'database-pooler') },
      data: { 'pgbouncer.ini': ini },
    }),
    // One replica, as in the test bed: each replica opens its own default_pool_size server connections.
    ...backingPartObjects({
      name,
      component: 'database-pooler',
      image,
      port: { name: 'postgres', number: topology.pgbouncer.port },
      uid: PGBOUNCER_UID,
      container: {
        args: ['/etc/pgbouncer/pgbouncer.ini'],
        readinessProbe: { tcpSocket: { port: 'postgres' }, periodSeconds: 5 },
        livenessProbe: { tcpSocket: { port: 'postgres' }, periodSeconds: 10, failureThreshold: 3 },
        resources: {
          requests: { cpu: '100m', memory: '64Mi' },
          limits: { cpu: '1', memory: '256Mi' },
        },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/pgbouncer/pgbouncer.ini', subPath: 'pgbouncer.ini' },
          { name: 'userlist', mountPath: '/etc/pgbouncer/secret', readOnly: true },
        ],
      },
      volumes: [
        { name: 'config', configMap: { name: `${name}-config` } },
        { name: 'userlist', secret: { secretName: `${name}-userlist` } },
      ],
    }),
  ];
}

function redisObjects(topology: Topology, image: string): KubernetesObject[] {
  return backingPartObjects({
    name: 'redis',
    component: 'cache',
    image,
    port: { name: 'redis', number: topology.redis.port },
    uid: 999, // the redis image's own `redis` user
    // Recreate: never two Redis at once behind the Service (each would count its own rate limits).
    strategy: { type: 'Recreate' },
    container: {
      // Redis holds no data of record (docs/operators/production.md): no persistence, and every key has a
      // TTL, so an LRU over those is safe.
      args: [
        'redis-server',
        '--port',
        String(topology.redis.port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory',
        '200mb',
        '--maxmemory-policy',
        'volatile-lru',
      ],
      readinessProbe: {
        exec: { command: ['redis-cli', '-p', String(topology.redis.port), 'ping'] },
        periodSeconds: 5,
      },
      livenessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 10 },
      resources: {
        requests: { cpu: '100m', memory: '128Mi' },
        limits: { cpu: '1', memory: '256Mi' },
      },
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    },
    volumes: [{ name: 'data', emptyDir: {} }],
  });
}

function secretObjects(topology: Topology): KubernetesObject[] {
  const { postgres, pgbouncer, redis } = topology;
  return [
    new Secret({
      metadata: { name: `${NAME}-secrets`, labels: labels(NAME, 'api') },
      type: 'Opaque',
      stringData: {
        // openssl rand -hex 32; the same in every replica, kept (docs/operators/backup.md).
        SECRET_KEY: PLACEHOLDER,
        DATABASE_URL: `postgres://${postgres.user}:${PLACEHOLDER}@pgbouncer:${pgbouncer.port}/${postgres.database}`,
        REDIS_URL: `redis://redis:${redis.port}`,
        // Scraping /metrics from Prometheus: at least 16 characters.
        METRICS_TOKEN: PLACEHOLDER,
      },
    }),
    new Secret({
      metadata: { name: 'pgbouncer-userlist', labels: labels('pgbouncer', 'database-pooler') },
      type: 'Opaque',
      stringData: { 'userlist.txt': renderPgbouncerUserlist([{ user: postgres.user, secret: PLACEHOLDER }]) },
    }),
  ];
}
