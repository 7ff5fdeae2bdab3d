/**
 * Lays out on disk what deploy/Dockerfile's runtime stage holds, without a container runtime: so a test
 * can start the service from exactly those files and prove the image's file list (and its production-
 * only node_modules) is enough to run it.
 *
 * - The `deps` stage runs for real: its COPYs from the context, then its RUN lines in a shell in a
 *   folder of its own, with its ENV (less the npm self-upgrade: this machine's npm is checked instead).
 * - The `build` stage is not run again by default: its output is the checkout's own `npm run build`
 *   (the same command), so its WORKDIR maps to the checkout. `runBuildStage` runs it as the deps stage
 *   is run (every dependency, then the build, from the context .dockerignore leaves: about a minute).
 * - The runtime stage's COPYs then fill the target folder from the context, `build` and `deps`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerIgnore } from './dockerignore.ts';
import { stageEnv, stageNamed, stageWorkdir, type DockerStage, type ParsedDockerfile } from './dockerfile.ts';

export interface ImageLayout {
  /** The runtime stage's WORKDIR, laid out. */
  appDir: string;
  /** The runtime stage's ENV. */
  env: Record<string, string>;
  /** The runtime stage's CMD. */
  cmd: string[];
  /** What each runtime COPY brought, for the test's report. */
  copied: { from: string; source: string; dest: string }[];
}

/** An `npm install -g npm@X` line (the image's npm upgrade). */
const NPM_SELF_UPGRADE = /^npm install -g npm@(\S+)$/;

/**
 * Lays out `parsed`'s runtime stage under `target` (an empty folder outside any checkout, so that module
 * resolution cannot fall back on the checkout's node_modules).
 * @throws Error when a stage is missing, a COPY uses a pattern, a source is absent or a RUN fails.
 */
export function layOutImage(
  parsed: ParsedDockerfile,
  opts: {
    context: string;
    target: string;
    runtimeStage?: string;
    runEnv?: Record<string, string>;
    /** Run the `build` stage too (its npm ci of every dependency and npm run build: about a minute). */
    runBuildStage?: boolean;
  },
): ImageLayout {
  const ignorePath = path.join(opts.context, '.dockerignore');
  const ignore = new DockerIgnore(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '');
  const fromContext = { root: opts.context, ignore };
  const build = stageNamed(parsed, 'build');
  const deps = stageNamed(parsed, 'deps');
  const runtime = stageNamed(parsed, opts.runtimeStage ?? 'runtime');
  const stageRoots = new Map<string, { stage: DockerStage; root: string }>([
    ['build', { stage: build, root: opts.runBuildStage ? path.join(opts.target, 'build') : opts.context }],
    ['deps', { stage: deps, root: path.join(opts.target, 'deps') }],
  ]);

  /** A stage's COPYs from the context and its RUN lines, in order, in a folder of its own. */
  const runStage = (stage: DockerStage, root: string): void => {
    mkdirSync(root, { recursive: true });
    const env = { ...opts.runEnv, ...stageEnv(stage), TARGETARCH: process.arch === 'x64' ? 'amd64' : process.arch };
    for (const s of stage.steps) {
      if (s.kind === 'COPY') {
        if (s.from) throw new Error(`Dockerfile:${s.line}: the ${stage.name} stage copies only from the context`);
        copyAll(s.sources, fromContext, inStage(root, stageWorkdir(stage), s.dest, s.line), s.line);
      } else if (s.kind === 'RUN') {
        const upgrade = NPM_SELF_UPGRADE.exec(s.shell.trim());
        if (upgrade) {
          const mine = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
          if (mine !== upgrade[1])
            throw new Error(`Dockerfile:${s.line}: the image runs npm ${upgrade[1]}, this machine ${mine}`);
          continue;
        }
        execFileSync('sh', ['-c', s.shell], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
      }
    }
  };
  if (opts.runBuildStage) runStage(build, stageRoots.get('build')!.root);
  runStage(deps, stageRoots.get('deps')!.root);

  // runtime: its COPYs.
  const appDir = path.join(opts.target, 'app');
  const workdir = stageWorkdir(runtime);
  const copied: ImageLayout['copied'] = [];
  let cmd: string[] | undefined;
  for (const s of runtime.steps) {
    if (s.kind === 'CMD') cmd = s.argv;
    if (s.kind !== 'COPY') continue;
    const dest = inStage(appDir, workdir, s.dest, s.line);
    if (s.from === undefined) {
      copyAll(s.sources, fromContext, dest, s.line);
      for (const source of s.sources) copied.push({ from: 'context', source, dest: path.relative(appDir, dest) });
      continue;
    }
    const from = stageRoots.get(s.from);
    if (!from) throw new Error(`Dockerfile:${s.line}: COPY --from=${s.from}: no such stage here`);
    const fromWorkdir = stageWorkdir(from.stage);
    const sources = s.sources.map((source) => {
      const relative = path.posix.relative(fromWorkdir, path.posix.resolve(fromWorkdir, source));
      if (relative.startsWith('..')) throw new Error(`Dockerfile:${s.line}: ${source} lies outside ${fromWorkdir}`);
      return relative;
    });
    copyAll(sources, { root: from.root }, dest, s.line);
    for (const source of sources) copied.push({ from: s.from, source, dest: path.relative(appDir, dest) });
  }
  if (!cmd) throw new Error('Dockerfile: the runtime stage has no CMD in exec form');
  return { appDir, env: stageEnv(runtime), cmd, copied };
}

/** `dest` (relative to `workdir` unless absolute) in a stage whose WORKDIR is laid out at `root`. */
function inStage(root: string, workdir: string, dest: string, line: number): string {
  const relative = path.posix.relative(workdir, path.posix.resolve(workdir, dest));
  if (relative.startsWith('..')) throw new Error(`Dockerfile:${line}: ${dest} lies outside the WORKDIR ${workdir}`);
  const full = path.join(root, ...relative.split('/').filter(Boolean));
  return dest.endsWith('/') ? `${full}${path.sep}` : full;
}

/**
 * COPY semantics for plain paths: a folder's contents go into `dest`; files into `dest/` or as `dest`.
 * From the build context, what .dockerignore leaves out is not there to copy.
 */
function copyAll(
  sources: readonly string[],
  from: { root: string; ignore?: DockerIgnore },
  dest: string,
  line: number,
): void {
  const filter = (file: string): boolean => {
    const relative = path.relative(from.root, file).split(path.sep).join('/');
    return relative === '' || !from.ignore?.excludes(relative);
  };
  for (const source of sources) {
    if (/[*?[]/.test(source)) throw new Error(`Dockerfile:${line}: ${source}: patterns are not laid out here`);
    const full = path.join(from.root, source);
    if (!existsSync(full) || !filter(full)) {
      throw new Error(`Dockerfile:${line}: ${source} is not in ${from.ignore ? 'the build context' : from.root}`);
    }
    const toFolder = dest.endsWith(path.sep) || sources.length > 1;
    const to = source === '.' || source === './' || !toFolder ? dest : path.join(dest, path.basename(source));
    cpSync(full, to, { recursive: true, filter });
  }
}
