/**
 * The Kubernetes part of the static checks (deploy/checks.ts runs it): every object of deploy/kubernetes/
 * validated against the Kubernetes API schema (kubernetes-models), then our rules: references between
 * objects resolve (ConfigMaps, Secrets, selectors, ports, the HPA target), probes and timings agree with
 * the topology, pods run as non-root, the Secret template holds placeholders only, and
 * kustomization.yaml lists every manifest.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { pinnedImage } from './dockerfile.ts';
import type { Topology } from './topology.ts';

const KINDS: Record<string, { validate(o: unknown): void }> = {
  'v1/ConfigMap': { validate: (o) => new ConfigMap(o as ConstructorParameters<typeof ConfigMap>[0]).validate() },
  'v1/Secret': { validate: (o) => new Secret(o as ConstructorParameters<typeof Secret>[0]).validate() },
  'v1/Service': { validate: (o) => new Service(o as ConstructorParameters<typeof Service>[0]).validate() },
  'apps/v1/Deployment': {
    validate: (o) => new Deployment(o as ConstructorParameters<typeof Deployment>[0]).validate(),
  },
  'policy/v1/PodDisruptionBudget': {
    validate: (o) => new PodDisruptionBudget(o as ConstructorParameters<typeof PodDisruptionBudget>[0]).validate(),
  },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    validate: (o) =>
      new HorizontalPodAutoscaler(o as ConstructorParameters<typeof HorizontalPodAutoscaler>[0]).validate(),
  },
};

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  resources?: string[];
}
type PodSpec = {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: {
    name: string;
    image: string;
    ports?: { name?: string; containerPort: number }[];
    envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
    resources?: { requests?: { cpu?: string } };
    readinessProbe?: { httpGet?: { path: string }; periodSeconds?: number; failureThreshold?: number };
    livenessProbe?: { httpGet?: { path: string } };
    securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  }[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
};
type DeploymentSpec = {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
};

const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** deploy/kubernetes/: every object against its schema, and the references and timings between them. */
export function checkKubernetes(root: string, topology: Topology): string[] {
  const dir = path.join(root, 'deploy', 'kubernetes');
  const problems: string[] = [];
  const objects: (K8sObject & { file: string })[] = [];
  let kustomization: (K8sObject & { file: string }) | undefined;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))) {
      if (doc.errors.length > 0) {
        problems.push(`deploy/kubernetes/${file}: ${doc.errors[0]!.message}`);
        continue;
      }
      const o = doc.toJS() as K8sObject;
      if (o.kind === 'Kustomization') {
        kustomization = { ...o, file };
        continue;
      }
      const kind = KINDS[`${o.apiVersion}/${o.kind}`];
      if (!kind) problems.push(`deploy/kubernetes/${file}: ${o.apiVersion} ${o.kind} is not checked here`);
      else {
        try {
          kind.validate(o);
        } catch (e) {
          problems.push(`deploy/kubernetes/${file}: ${o.kind} ${o.metadata?.name}: ${(e as Error).message}`);
        }
      }
      objects.push({ ...o, file });
    }
  }
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const deployments = objects.filter((o) => o.kind === 'Deployment');

  // kustomization.yaml lists every manifest but the secret template.
  const manifests = [...new Set(objects.map((o) => o.file))].filter((f) => f !== 'secrets.example.yaml');
  if (!kustomization) problems.push('deploy/kubernetes/kustomization.yaml: missing');
  else {
    for (const f of manifests)
      if (!kustomization.resources?.includes(f)) problems.push(`kustomization.yaml: does not list ${f}`);
    for (const f of kustomization.resources ?? []) {
      if (!existsSync(path.join(dir, f))) problems.push(`kustomization.yaml: lists ${f}, which does not exist`);
    }
    if (kustomization.resources?.includes('secrets.example.yaml')) {
      problems.push('kustomization.yaml: applies the secret template');
    }
  }

  for (const d of deployments) {
    const where = `deploy/kubernetes/${d.file}: Deployment ${d.metadata.name}`;
    const spec = d.spec as DeploymentSpec;
    const pod = spec.template.spec;
    if (!matches(spec.selector.matchLabels, spec.template.metadata.labels))
      problems.push(`${where}: selector misses its pods`);
    if (!pod.securityContext?.runAsNonRoot || !pod.securityContext.runAsUser) {
      problems.push(`${where}: pods must run as a non-root uid`);
    }
    for (const c of pod.containers) {
      if (!pinnedImage(c.image) && !/:[\w.-]*\d[\w.-]*$/.test(c.image))
        problems.push(`${where}: image ${c.image} has no version`);
      if (c.securityContext?.allowPrivilegeEscalation !== false || c.securityContext.readOnlyRootFilesystem !== true) {
        problems.push(`${where}: container ${c.name} must not escalate and must have a read-only root`);
      }
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef && !named('ConfigMap', from.configMapRef.name)) {
          problems.push(`${where}: envFrom ConfigMap ${from.configMapRef.name} is not defined`);
        }
        if (from.secretRef && !named('Secret', from.secretRef.name)) {
          problems.push(`${where}: envFrom Secret ${from.secretRef.name} has no template`);
        }
      }
    }
    for (const v of pod.volumes ?? []) {
      if (v.configMap && !named('ConfigMap', v.configMap.name))
        problems.push(`${where}: volume ConfigMap ${v.configMap.name} missing`);
      if (v.secret && !named('Secret', v.secret.secretName))
        problems.push(`${where}: volume Secret ${v.secret.secretName} has no template`);
    }
    // Every Service, PDB and HPA that points here finds its pods and ports.
    for (const s of objects.filter((o) => o.kind === 'Service')) {
      const sspec = s.spec as { selector: Record<string, string>; ports: { targetPort: string | number }[] };
      if (!matches(sspec.selector, spec.template.metadata.labels)) continue;
      const ports = pod.containers.flatMap((c) => c.ports ?? []);
      for (const p of sspec.ports) {
        if (!ports.some((cp) => cp.name === p.targetPort || cp.containerPort === p.targetPort)) {
          problems.push(
            `deploy/kubernetes/${s.file}: Service ${s.metadata.name} targets port ${p.targetPort}, not on the pods`,
          );
        }
      }
    }
  }
  for (const s of objects.filter((o) => o.kind === 'Service')) {
    const sspec = s.spec as { selector: Record<string, string> };
    if (!deployments.some((d) => matches(sspec.selector, (d.spec as DeploymentSpec).template.metadata.labels))) {
      problems.push(`deploy/kubernetes/${s.file}: Service ${s.metadata.name} selects no pods`);
    }
  }

  // The service: the topology's replicas, probes, disruption budget, autoscaler and shutdown timings.
  const app = named('Deployment', 'content-firewall');
  if (!app) return [...problems, 'deploy/kubernetes: no Deployment content-firewall'];
  const spec = app.spec as DeploymentSpec;
  const container = spec.template.spec.containers[0]!;
  const { service, balancer } = topology;
  if (spec.replicas !== service.nodes)
    problems.push(`Deployment content-firewall: replicas ${spec.replicas}, topology ${service.nodes}`);
  if (container.readinessProbe?.httpGet?.path !== service.readyPath)
    problems.push('Deployment content-firewall: readiness probe path');
  if (container.livenessProbe?.httpGet?.path !== service.livePath)
    problems.push('Deployment content-firewall: liveness probe path');
  const readiness = container.readinessProbe;
  const notReadyAfterMs = (readiness?.periodSeconds ?? 10) * 1000 * (readiness?.failureThreshold ?? 3);
  const { readinessDelayMs, timeoutMs } = service.shutdown;
  if (readinessDelayMs <= balancer.checkIntervalMs * balancer.fall) {
    problems.push(
      `topology: the readiness delay ${readinessDelayMs} ms ends before HAProxy takes the node out (${balancer.checkIntervalMs * balancer.fall} ms)`,
    );
  }
  if (readinessDelayMs <= notReadyAfterMs) {
    problems.push(
      `Deployment content-firewall: the readiness delay ${readinessDelayMs} ms ends before the readiness probe fails (${notReadyAfterMs} ms)`,
    );
  }
  const grace = (spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
  if (grace <= readinessDelayMs + timeoutMs) {
    problems.push(
      `Deployment content-firewall: terminationGracePeriodSeconds ${grace / 1000} s does not cover the readiness delay and the drain (${(readinessDelayMs + timeoutMs) / 1000} s)`,
    );
  }
  const env = named('ConfigMap', 'content-firewall-env')?.data ?? {};
  if (env.SHUTDOWN_READINESS_DELAY_MS !== String(readinessDelayMs) || env.SHUTDOWN_TIMEOUT_MS !== String(timeoutMs)) {
    problems.push('ConfigMap content-firewall-env: the shutdown timings differ from the topology');
  }
  for (const [k, v] of Object.entries(service.env)) {
    // TRUST_PROXY: no balancer replaces X-Forwarded-For in front of a Kubernetes Service.
    if (k === 'TRUST_PROXY' ? env[k] !== 'false' : env[k] !== v) problems.push(`ConfigMap content-firewall-env: ${k}`);
  }
  const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget');
  const pdbSpec = pdb?.spec as
    { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } | undefined;
  if (
    !pdbSpec ||
    pdbSpec.maxUnavailable !== service.maxUnavailable ||
    !matches(pdbSpec.selector.matchLabels, spec.template.metadata.labels)
  ) {
    problems.push(`PodDisruptionBudget: must cover content-firewall with maxUnavailable ${service.maxUnavailable}`);
  }
  const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')?.spec as
    | {
        scaleTargetRef: { kind: string; name: string };
        minReplicas: number;
        maxReplicas: number;
        metrics: { resource?: { name: string; target: { averageUtilization?: number } } }[];
      }
    | undefined;
  if (!hpa || hpa.scaleTargetRef.kind !== 'Deployment' || hpa.scaleTargetRef.name !== 'content-firewall') {
    problems.push('HorizontalPodAutoscaler: must scale Deployment content-firewall');
  } else {
    const cpu = hpa.metrics.find((m) => m.resource?.name === 'cpu');
    if (
      hpa.minReplicas !== service.autoscale.min ||
      hpa.maxReplicas !== service.autoscale.max ||
      cpu?.resource?.target.averageUtilization !== service.autoscale.targetCpuPercent
    ) {
      problems.push('HorizontalPodAutoscaler: replicas or CPU target differ from the topology');
    }
    if (!container.resources?.requests?.cpu) problems.push('Deployment content-firewall: the HPA needs a CPU request');
  }

  // The Secret template holds placeholders, never secrets.
  for (const s of objects.filter((o) => o.kind === 'Secret')) {
    if (s.file !== 'secrets.example.yaml') problems.push(`deploy/kubernetes/${s.file}: a Secret outside the template`);
    if (s.data)
      problems.push(`deploy/kubernetes/${s.file}: Secret ${s.metadata.name} has data: placeholders go in stringData`);
    for (const [k, v] of Object.entries(s.stringData ?? {})) {
      if (/SECRET|TOKEN|PASSWORD|userlist|DATABASE_URL/i.test(k) && !v.includes('REPLACE-ME')) {
        problems.push(`deploy/kubernetes/${s.file}: Secret ${s.metadata.name} ${k} is not a placeholder`);
      }
    }
  }
  return problems;
}
